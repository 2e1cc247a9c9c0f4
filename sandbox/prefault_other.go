//go:build !linux

package sandbox

func prefault() {}
