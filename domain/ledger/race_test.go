//go:build race

package ledger_test

// raceEnabled shortens the property run under the race detector, which makes it ten times
// slower and has nothing to find in single-goroutine code.
const raceEnabled = true
