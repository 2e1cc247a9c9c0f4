//go:build !linux

package tempdir

// unmountBelow is Linux only: elsewhere toolfold mounts nothing.
func unmountBelow(string) {}
