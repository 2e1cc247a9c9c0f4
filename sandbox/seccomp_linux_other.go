//go:build linux && !amd64

package sandbox

import "errors"

// seccompAvailable is false: the filter's syscall numbers are x86_64's.
const seccompAvailable = false

func installSeccomp() error {
	return errors.New("seccomp filter not available on this architecture (x86_64 only)")
}

func installNoProcs() error {
	return errors.New("seccomp filter not available on this architecture (x86_64 only)")
}
