package api

import (
	"context"
	"time"

	"clearvest/api/apigen"
	"clearvest/app/chainwatch"
)

// ChainStatus answers how the deposit watchers stand (chainwatch.Watcher.Status).
type ChainStatus interface {
	Status(ctx context.Context) ([]chainwatch.NetworkStatus, error)
}

func (s *server) GetChainStatus(ctx context.Context, _ apigen.GetChainStatusRequestObject) (apigen.GetChainStatusResponseObject, error) {
	if _, err := s.caller(ctx); err != nil {
		return nil, err
	}
	out := apigen.GetChainStatus200JSONResponse{Networks: []apigen.ChainNetworkStatus{}}
	if s.chains == nil {
		return out, nil
	}
	list, err := s.chains.Status(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range list {
		out.Networks = append(out.Networks, apigen.ChainNetworkStatus{Network: apigen.DepositNetwork(n.Network),
			State: apigen.ChainNetworkStatusState(n.State), Tip: int64(n.Tip), Cursor: int64(n.Cursor), Confirmations: int64(n.Confirmations),
			LastSuccessAt: optionalTime(n.LastSuccess), LastError: n.LastError, LastErrorAt: optionalTime(n.LastErrorAt),
			WaitingForPrice: n.Waiting, Orphaned: n.Orphaned})
	}
	return out, nil
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
