package api

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	appmoney "clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/projections/history"
)

// TestStatementCSVNeutralisesEveryColumn puts a formula start in every text an item carries
// into a cell (its title, shown as the type of a line without a type of its own, its reference,
// its details) and reads the CSV back: no cell may start with = + - @ tab or CR unless it is a
// plain decimal number, which a spreadsheet reads as a number; the signed amounts stay numbers.
func TestStatementCSVNeutralisesEveryColumn(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{"=", "+", "-", "@", "\t", "\r"} {
		untyped := history.Item{Kind: "account.something_new", Title: p + "1+1", Reference: p + "Ref",
			Effect: money.MustParse("-0.50"), Balance: money.MustParse("-1"), At: day, Details: map[string]any{}}
		adjustment := history.Item{Kind: account.TypeAdjustmentPosted, Title: "Adjustment", Reference: p + "Adj",
			Effect: money.MustParse("2"), Balance: money.MustParse("1"), At: day,
			Details: map[string]any{"reason": p + "HYPERLINK(\"http://evil.example\")", "category": p + "cat"}}
		st := appmoney.Statement{Statement: history.Statement{Opening: money.MustParse("-0.50"), Closing: money.MustParse("1"),
			Items: []history.Item{untyped, adjustment}}, From: &day, To: day}
		body, err := statementCSV(st)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if len(rows) != 5 {
			t.Fatalf("%q: %d rows", p, len(rows))
		}
		for r, row := range rows {
			for c, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) && !plainDecimal(cell) {
					t.Errorf("prefix %q: row %d column %q: %q is not neutralised", p, r, statementHeader[c], cell)
				}
			}
		}
		for i, want := range []map[string]string{
			{"Type": "'" + p + "1+1", "Reference": "'" + p + "Ref", "Details": "", "Amount": "-0.50", "Balance after": "-1.00"},
			{"Type": "Adjustment", "Reference": "'" + p + "Adj", "Details": "'" + p + "HYPERLINK(\"http://evil.example\"); " + p + "cat",
				"Amount": "2.00", "Balance after": "1.00"},
		} {
			got := rows[2+i]
			for c, name := range statementHeader {
				// encoding/csv's writer drops carriage returns inside cells (checked below).
				if w, ok := want[name]; ok && got[c] != strings.ReplaceAll(w, "\r", "") {
					t.Errorf("prefix %q: line %d column %q = %q, want %q", p, i, name, got[c], w)
				}
			}
		}
		// The writer (CRLF line ends) drops a carriage return inside a cell: none is left but the
		// line ends.
		if strings.Count(string(body), "\r") != strings.Count(string(body), "\r\n") {
			t.Errorf("a lone carriage return in the statement: %q", body)
		}
		if rows[1][5] != "-0.50" || rows[4][5] != "1.00" {
			t.Errorf("prefix %q: opening and closing balances %q, %q", p, rows[1][5], rows[4][5])
		}
	}
}

// TestStatementShowsAWithdrawalAndItsFeeApart checks that a withdrawal request, one change of
// the available balance in the books, is two lines with the balance after each.
func TestStatementShowsAWithdrawalAndItsFeeApart(t *testing.T) {
	t.Parallel()
	it := history.Item{Kind: account.TypeWithdrawalRequested, Reference: "WDR-0123ABCD", Amount: money.MustParse("100"),
		Fee: money.MustParse("3"), Effect: money.MustParse("-100"), Balance: money.MustParse("50"),
		Details: map[string]any{"asset": "USDT", "network": "TRC20", "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}}
	var got []string
	for _, l := range statementLines(it) {
		got = append(got, l.typ+"|"+l.details+"|"+l.amount.String()+"|"+l.balance.String())
	}
	want := []string{"Withdrawal|USDT (TRC20); TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t|-97.00|53.00", "Withdrawal fee||-3.00|50.00"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSafeCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "", "plain": "plain", "-0.50": "-0.50", "12": "12", "-12.345": "-12.345",
		"-": "'-", "-.5": "'-.5", "-1+1": "'-1+1", "-2-cmd": "'-2-cmd", "1.": "1.", "=1": "'=1", "+1": "'+1",
		"@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx", "a=b": "a=b",
	} {
		if got := safeCell(in); got != want {
			t.Errorf("safeCell(%q) = %q, want %q", in, got, want)
		}
	}
}
