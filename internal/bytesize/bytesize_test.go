package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		0:         "0 B",
		1023:      "1023 B",
		1 << 10:   "1.0 KiB",
		1536:      "1.5 KiB",
		512 << 10: "512.0 KiB",
		1 << 20:   "1.0 MiB",
		5 << 30:   "5120.0 MiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
