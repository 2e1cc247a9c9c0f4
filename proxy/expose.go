package proxy

import "github.com/toolfold/toolfold/config"

// exposesCode reports whether clients see search_tools and run_script:
// with expose: code (the default) and hybrid, not with passthrough.
func (p *Proxy) exposesCode() bool {
	return p.cfg.Expose.Mode != config.ExposePassthrough
}
