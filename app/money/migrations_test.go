package money_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"clearvest/app/money"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

// TestChainTxHashMigrationKeysOldHashesCanonically: deposit hashes claimed before the canonical
// form (money_tx_hashes: trimmed, lower case, no network) are claimed again in the new table on
// every network whose form they can take, variants of one hash collapse into the first claim,
// and keys that are no hash are left behind.
func TestChainTxHashMigrationKeysOldHashesCanonically(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	before := money.Migrations
	i := slices.IndexFunc(before.Migrations, func(m pgmigrate.Migration) bool { return strings.Contains(m.Name, "chain_tx_hashes") })
	if i < 0 {
		t.Fatal("no chain_tx_hashes migration")
	}
	before.Migrations = before.Migrations[:i]
	if err := pgmigrate.Apply(ctx, pool, before); err != nil {
		t.Fatal(err)
	}
	h := strings.Repeat("ab", 32)
	g := strings.Repeat("cd", 32)
	for _, row := range [][2]string{
		{h, "DEP-AAAA-AAAA"},
		{"0x" + h, "DEP-BBBB-BBBB"}, // the same hash, accepted again under the old key
		{"0x" + g, "DEP-CCCC-CCCC"},
		{h + "\u200b", "DEP-DDDD-DDDD"}, // not a hash
		{"0xabc", "DEP-EEEE-EEEE"},
	} {
		if _, err := pool.Exec(ctx, `INSERT INTO money_tx_hashes (tx_hash_key, transaction_id, created_at) VALUES ($1, $2, clock_timestamp())`,
			row[0], row[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := pgmigrate.Apply(ctx, pool, money.Migrations); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT network || ' ' || tx_hash || ' ' || kind || ' ' || ref FROM money_chain_tx_hashes ORDER BY network, tx_hash`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	want := []string{
		"BTC " + h + " deposit DEP-AAAA-AAAA",
		"BTC " + g + " deposit DEP-CCCC-CCCC",
		"ERC20 0x" + h + " deposit DEP-AAAA-AAAA",
		"ERC20 0x" + g + " deposit DEP-CCCC-CCCC",
		"TRC20 " + h + " deposit DEP-AAAA-AAAA",
		"TRC20 " + g + " deposit DEP-CCCC-CCCC",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("claims:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
