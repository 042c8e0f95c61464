package money

import (
	"context"
	"fmt"

	"clearvest/domain/account"
)

// CheckClosable refuses (account.ErrHoldsMoney, a 409 naming the figures) to close an account
// whose money aggregate still holds anything: an available balance, a request waiting for staff
// or an active investment. A closed account cannot sign in to withdraw, so its money would be
// stranded. It reads the aggregate, not a read model, because it decides.
//
// Every path that closes an account calls it before the closure (accounts.Deps.CloseCheck). New
// money requests consult the user stream (command.Consult), so a request racing the closure
// fails on the closure's event instead of landing in a closed account.
func (s *Service) CheckClosable(ctx context.Context, userID string) error {
	var h account.Holdings
	if err := s.readAccount(ctx, userID, func(acc *account.Account) error {
		h = acc.Holdings()
		return nil
	}); err != nil {
		return fmt.Errorf("money: load account: %w", err)
	}
	return h.Refusal()
}
