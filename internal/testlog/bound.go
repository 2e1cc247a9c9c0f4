package testlog

import (
	"os"
	"strconv"
	"time"
)

// SlowdownEnv names the environment variable that stretches every test
// bound Bound returns: TOOLFOLD_TEST_SLOWDOWN=3 on a machine three times
// slower than the one the bounds were written for. Unset, empty, invalid
// or below 1, it is 1.
const SlowdownEnv = "TOOLFOLD_TEST_SLOWDOWN"

// Bound is a test's hang guard d, stretched by SlowdownEnv. A bound in a
// test only catches a hang, never measures speed: d is what a loaded
// two-core machine (load 10, another build beside the tests) needs, and
// a slower machine sets SlowdownEnv rather than editing constants.
func Bound(d time.Duration) time.Duration {
	f, err := strconv.ParseFloat(os.Getenv(SlowdownEnv), 64)
	if err != nil || f < 1 {
		return d
	}
	return time.Duration(float64(d) * f)
}
