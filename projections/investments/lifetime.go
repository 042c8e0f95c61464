package investments

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"

	"clearvest/domain/money"
)

// LifetimeInvested is what userID has put into plans over their lifetime: every investment that
// was activated, whatever became of it since (matured, redeemed early). Reinvestments are left
// out: they move returns and principal already counted, not new money.
func LifetimeInvested(ctx context.Context, pool pgread.Querier, userID string) (money.Money, error) {
	var s string
	err := pool.QueryRow(ctx, `SELECT `+cents("COALESCE(sum(amount), 0)")+` FROM rm_investments.investments
		WHERE user_id = $1 AND start_at IS NOT NULL AND reinvested_from = ''`, userID).Scan(&s)
	if err != nil {
		return money.Money{}, fmt.Errorf("investments: lifetime: %w", err)
	}
	return money.Parse(s)
}
