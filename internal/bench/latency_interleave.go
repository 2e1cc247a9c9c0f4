package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// measureInterleaved times cases in turn, one call of each per round in a
// new random order every round, so that all of them see the same load: on
// a machine shared with other jobs, paths measured one after the other saw
// loads that differed by more than the paths did. Each row after the first
// also gets what it added to the first, round by round (the median of the
// differences). All cases make cases[0].n calls; a case's before, when
// set, runs before each of its calls, off the clock.
func measureInterleaved(ctx context.Context, cases []latencyCase) ([]LatencyRow, error) {
	for _, c := range cases { // warm-up, not counted
		if err := c.call(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	n := cases[0].n
	d := make([][]time.Duration, len(cases))
	order := make([]int, len(cases))
	for i := range order {
		order[i] = i
	}
	for range n {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			if cases[i].before != nil {
				cases[i].before() // off the clock
			}
			start := time.Now()
			if err := cases[i].call(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", cases[i].name, err)
			}
			d[i] = append(d[i], time.Since(start))
		}
	}
	rows := make([]LatencyRow, len(cases))
	for i, c := range cases {
		if i > 0 {
			diff := make([]time.Duration, n)
			for r := range n {
				diff[r] = d[i][r] - d[0][r]
			}
			slices.Sort(diff)
			rows[i].AddedTo, rows[i].Added = cases[0].name, diff[(n-1)/2]
		}
		row := latencyRow(c.name, fmt.Sprintf("%d", n), d[i])
		row.AddedTo, row.Added = rows[i].AddedTo, rows[i].Added
		rows[i] = row
	}
	return rows, nil
}
