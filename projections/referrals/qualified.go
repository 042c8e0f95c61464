package referrals

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
)

// QualifiedCount is how many of the users referrerID referred have qualified (their first
// deposit was confirmed), closed accounts included: they qualified when they did.
func QualifiedCount(ctx context.Context, pool pgread.Querier, referrerID string) (int, error) {
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM rm_referrals.referred WHERE referrer_id = $1 AND qualified_at IS NOT NULL`,
		referrerID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("referrals: qualified count: %w", err)
	}
	return n, nil
}
