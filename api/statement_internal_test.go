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

// TestStatementCSVNeutralisesEveryColumn puts a formula start in every text column of an item (and
// a detail key, since details are written key first) and reads the CSV back: no cell may start
// with = + - @ tab or CR unless it is a plain decimal number, which a spreadsheet reads as a
// number; the signed amounts stay numbers.
func TestStatementCSVNeutralisesEveryColumn(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{"=", "+", "-", "@", "\t", "\r"} {
		item := history.Item{
			Type: history.Type(p + "Type"), Status: account.Status(p + "Status"), Title: p + "1+1", Reference: p + "Ref",
			Amount: money.MustParse("0.50"), Fee: money.MustParse("0"), Effect: money.MustParse("-0.50"), Balance: money.MustParse("-1"),
			At: day, Details: map[string]any{"notes": p + "HYPERLINK(\"http://evil.example\")", p + "key": p + "value"},
		}
		st := appmoney.Statement{Statement: history.Statement{Opening: money.MustParse("-2"), Closing: money.MustParse("3"), Items: []history.Item{item}},
			From: &day, To: day}
		body, err := statementCSV(st)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if len(rows) != 4 {
			t.Fatalf("%q: %d rows", p, len(rows))
		}
		for r, row := range rows {
			for c, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) && !plainDecimal(cell) {
					t.Errorf("prefix %q: row %d column %q: %q is not neutralised", p, r, statementHeader[c], cell)
				}
			}
		}
		got := rows[2]
		want := map[string]string{
			"Type": "'" + p + "Type", "Status": "'" + p + "Status", "Title": "'" + p + "1+1", "Reference": "'" + p + "Ref",
			"Amount": "0.50", "Fee": "0.00", "Effect": "-0.50", "Balance after": "-1.00",
			"Notes": "'" + p + "HYPERLINK(\"http://evil.example\")", "Details": "'" + p + "key: " + p + "value",
		}
		for c, name := range statementHeader {
			// encoding/csv's writer drops carriage returns inside cells (checked below).
			if w, ok := want[name]; ok && got[c] != strings.ReplaceAll(w, "\r", "") {
				t.Errorf("prefix %q: column %q = %q, want %q", p, name, got[c], w)
			}
		}
		// The writer (CRLF line ends) drops a carriage return inside a cell: none is left but the
		// line ends.
		if strings.Count(string(body), "\r") != strings.Count(string(body), "\r\n") {
			t.Errorf("a lone carriage return in the statement: %q", body)
		}
		if rows[1][8] != "-2.00" || rows[3][8] != "3.00" {
			t.Errorf("prefix %q: opening and closing balances %q, %q", p, rows[1][8], rows[3][8])
		}
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
