//go:build !race

package sandbox

// raceOverhead is added to the child's RLIMIT_DATA in race-detector builds;
// zero in every other build.
const raceOverhead = 0

// raceEnv is added to the child's environment in race-detector builds.
var raceEnv []string

// raceMemoryFactor multiplies the script's memory in the child's own
// RLIMIT_DATA in race-detector builds; 1 in every other build.
const raceMemoryFactor = 1
