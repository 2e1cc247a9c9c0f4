package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toolfold/toolfold/audit"
)

// followWidths are the follow table's column widths: its rows are printed
// one at a time, so they cannot be measured first as printAudit's are.
var followWidths = []int{19, 12, 10, 40, 16, 10, 9, 7}

// followAudit runs `toolfold audit --follow`: every record of file that
// passes f, then each one as it is written, until ctx ends (Ctrl-C).
func followAudit(ctx context.Context, file string, f audit.Filter, args bool, stdout, stderr io.Writer) int {
	head := "TIME (UTC)\tSESSION\tRUN\tWHAT\tDECISION\tAPPROVAL\tDURATION\tBYTES\tRESULT"
	if args {
		head += "\tARGS"
	}
	fmt.Fprintln(stdout, padRow(head))
	fmt.Fprintf(stderr, "toolfold audit: following %s; Ctrl-C ends\n", file)
	bad := 0
	err := audit.Follow(ctx, file, f, func(e audit.Entry) {
		fmt.Fprintln(stdout, padRow(auditRow(e, args)))
	}, &audit.FollowOptions{Bad: func([]byte) { bad++ }})
	if bad > 0 {
		fmt.Fprintf(stderr, "toolfold audit: skipped %d lines that are not audit records\n", bad)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// padRow pads a tab-separated row's cells to followWidths.
func padRow(row string) string {
	cells := strings.Split(row, "\t")
	for i := range cells {
		if i < len(followWidths) {
			cells[i] = fmt.Sprintf("%-*s", followWidths[i], cells[i])
		}
	}
	return strings.TrimRight(strings.Join(cells, "  "), " ")
}
