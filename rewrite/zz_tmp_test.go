package rewrite

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestZZSecretFormats(t *testing.T) {
	d := mustDetector(t, Defaults())
	r := rand.New(rand.NewPCG(5, 6))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	from := func(set string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[r.IntN(len(set))]
		}
		return string(b)
	}
	hexl, b64u := "0123456789abcdef", alnum+"-_"
	for _, v := range []string{
		"ghu_" + from(alnum, 36), "ghr_" + from(alnum, 36), "glptt-" + from(hexl, 40), "gldt-" + from(b64u, 20),
		"xoxa-2-" + from("0123456789", 12) + "-" + from("0123456789", 12) + "-" + from(hexl, 32),
		"rk_test_" + from(alnum, 24), "whsec_" + from(alnum, 32), "sk-svcacct-" + from(b64u, 64),
		"sk-ant-admin01-" + from(b64u, 93) + "AA", "gsk_" + from(alnum, 52), "r8_" + from(alnum, 37), "pplx-" + from(alnum, 48),
		"xai-" + from(alnum, 80), "shpss_" + from("abcdefABCDEF0123456789", 32), "npm_" + from(alnum, 36),
		"AKIA" + from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 16),
	} {
		for _, tmpl := range []string{"%s", "token=%s", "Copied: «%s».", "name,%s,2024", "v=%s;", `{"data":{"v":"%s"}}`, "- field → %s", "* %s", "| Jane | %s | yes |", "INFO user updated %s ok", "value:%s", "?q=%s&lang=en", "[%s]", "<span>%s</span>", "\"%s\"", "Noted: %s (see ticket).", "I wrote down %s yesterday."} {
			in := strings.Replace(tmpl, "%s", v, 1)
			if got := found(d, in); got != "SECRET:"+v {
				t.Logf("%q -> %q", in, got)
			}
		}
	}
}
