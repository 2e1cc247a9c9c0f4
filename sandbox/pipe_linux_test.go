package sandbox

import (
	"time"

	"golang.org/x/sys/unix"
)

// waitPipeFull returns once the pipe read end fd holds as many bytes as
// the pipe can.
func waitPipeFull(fd int) error {
	size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		return err
	}
	for {
		if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err != nil || n >= size {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}
