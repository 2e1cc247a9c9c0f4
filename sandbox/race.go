//go:build race

package sandbox

// raceOverhead is added to the child's RLIMIT_DATA in race-detector builds
// (test binaries): the race runtime maps ~300 MiB of shadow memory up front.
const raceOverhead = 768 << 20

// raceEnv is added to the child's environment in race-detector builds: by
// default the race runtime sleeps a second before exiting.
var raceEnv = []string{"GORACE=atexit_sleep_ms=0"}

// raceMemoryFactor multiplies the script's memory in the child's own
// RLIMIT_DATA in race-detector builds: the race runtime maps shadow memory
// several times the size of the heap.
const raceMemoryFactor = 5
