// Package bytesize renders a size in bytes for a message a person or a
// model reads: "512 B", "4.0 KiB", "1.5 MiB". The proxy's run footers and
// cut-result notes and the workspace limits' errors say sizes this one way.
package bytesize

import "fmt"

// Format renders n bytes with one decimal in the largest binary unit up
// to MiB: 1536 is "1.5 KiB", 3<<20 is "3.0 MiB", 100 is "100 B".
func Format(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
