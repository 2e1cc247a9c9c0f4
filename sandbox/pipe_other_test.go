//go:build !linux

package sandbox

import "time"

// waitPipeFull gives the parent time to fill the pipe: outside Linux a
// pipe's size cannot be read.
func waitPipeFull(int) error {
	time.Sleep(200 * time.Millisecond)
	return nil
}
