package api

import (
	"context"
	"slices"
	"time"

	"clearvest/api/apigen"
	"clearvest/app/chainaddr"
	"clearvest/app/chainwatch"
	appmoney "clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/domainerr"
	"clearvest/domain/payout"
	"clearvest/domain/reference"
)

// errMoneyUnavailable answers the payment operations of a server wired without the money
// service (tests of other parts).
var errMoneyUnavailable = domainerr.New(domainerr.RuleBroken, "Deposits are not available yet.")

// errBadJSON answers a command without a body (the generated router already refuses most).
var errBadJSON = domainerr.New(domainerr.Invalid, "The request body is missing.")

const (
	msgDepositConfirmed = "Deposit confirmed successfully"
	msgDepositRejected  = "Deposit rejected successfully"
)

// moneyCaller is the signed-in caller as the money service sees them.
func (s *server) moneyCaller(ctx context.Context) (appmoney.Actor, error) {
	if s.money == nil {
		return appmoney.Actor{}, errMoneyUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return appmoney.Actor{}, err
	}
	return appmoney.Actor{UserID: a.UserID, Role: a.Role, IP: a.Client.IP}, nil
}

func (s *server) ListDepositAddresses(ctx context.Context, _ apigen.ListDepositAddressesRequestObject) (apigen.ListDepositAddressesResponseObject, error) {
	if s.money == nil {
		return nil, errMoneyUnavailable
	}
	list, err := s.money.Addresses(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.ListDepositAddresses200JSONResponse{Addresses: make([]apigen.DepositAddress, 0, len(list)),
		Minimum: s.money.MinDeposit().String()}
	for _, a := range list {
		out.Addresses = append(out.Addresses, apigen.DepositAddress{Asset: apigen.DepositAsset(a.Asset),
			Network: apigen.DepositNetwork(a.Network), Address: a.Address, Confirmations: a.Network.Confirmations(), UsualMinutes: a.Network.UsualMinutes()})
	}
	own, err := s.ownAddresses(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range own {
		for _, as := range chainaddr.Assets(o.Network) {
			entry := apigen.DepositAddress{Asset: apigen.DepositAsset(as), Network: apigen.DepositNetwork(o.Network), Address: o.Address, Own: true,
				Confirmations: s.ownConfirmations(o.Network), UsualMinutes: o.Network.UsualMinutes()}
			i := slices.IndexFunc(out.Addresses, func(d apigen.DepositAddress) bool {
				return d.Asset == entry.Asset && d.Network == entry.Network
			})
			if i >= 0 {
				out.Addresses[i] = entry
			} else {
				out.Addresses = append(out.Addresses, entry)
			}
		}
	}
	return out, nil
}

// ownAddresses are the signed-in caller's own addresses on the watched networks, given now if
// they had none. A visitor has none; a staff member viewing as the user sees the ones given and
// hands out nothing on the user's behalf.
func (s *server) ownAddresses(ctx context.Context) ([]chainaddr.Address, error) {
	if s.chainAddrs == nil {
		return nil, nil
	}
	a, err := actorOf(ctx)
	if err != nil {
		return nil, nil
	}
	var out []chainaddr.Address
	for _, n := range s.chainAddrs.Networks() {
		var addr chainaddr.Address
		found := true
		if a.Impersonator != nil {
			addr, found, err = s.chainAddrs.Find(ctx, n, a.UserID)
		} else {
			addr, err = s.chainAddrs.AddressFor(ctx, n, a.UserID)
		}
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, addr)
		}
	}
	return out, nil
}

// ownConfirmations is what the watcher waits for on a network (CLEARVEST_CHAIN_*_CONFIRMATIONS).
func (s *server) ownConfirmations(n payout.Network) int {
	if c, ok := s.chainConfirmations[n]; ok {
		return int(c)
	}
	return n.Confirmations()
}

func (s *server) CreateDeposit(ctx context.Context, req apigen.CreateDepositRequestObject) (apigen.CreateDepositResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appmoney.DepositInput{Amount: req.Body.Amount, Asset: req.Body.Asset, Network: req.Body.Network}
	if req.Body.OnChainAmount != nil {
		in.OnChainAmount = *req.Body.OnChainAmount
	}
	if req.Body.TxHash != nil {
		in.TxHash = *req.Body.TxHash
	}
	created, err := s.money.CreateDeposit(ctx, a, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, created.Position)
	return apigen.CreateDeposit200JSONResponse(depositJSON(created.Deposit, false, nil)), nil
}

func (s *server) ViewPaymentStatus(ctx context.Context, req apigen.ViewPaymentStatusRequestObject) (apigen.ViewPaymentStatusResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.money.Deposit(ctx, a, req.TransactionId)
	if err != nil {
		return nil, err
	}
	progress, err := s.progressOf(ctx, []appmoney.Deposit{d})
	if err != nil {
		return nil, err
	}
	return apigen.ViewPaymentStatus200JSONResponse(depositJSON(d, a.Role.IsStaff(), progress)), nil
}

func (s *server) GetPendingDeposits(ctx context.Context, req apigen.GetPendingDepositsRequestObject) (apigen.GetPendingDepositsResponseObject, error) {
	if _, err := s.moneyCaller(ctx); err != nil {
		return nil, err
	}
	page, err := s.money.PendingDepositPage(ctx, str(req.Params.Cursor), req.Params.Limit)
	if err != nil {
		return nil, err
	}
	progress, err := s.progressOf(ctx, page.Items)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	out := apigen.GetPendingDeposits200JSONResponse{AsOf: now, Total: page.Total, NextCursor: nextCursor(page.NextCursor),
		Deposits: make([]apigen.DepositQueueItem, 0, len(page.Items))}
	for _, d := range page.Items {
		out.Deposits = append(out.Deposits, apigen.DepositQueueItem{Deposit: depositJSON(d, true, progress),
			AgeSeconds: max(0, int64(now.Sub(d.RequestedAt)/time.Second))})
	}
	return out, nil
}

func (s *server) ConfirmDeposit(ctx context.Context, req apigen.ConfirmDepositRequestObject) (apigen.ConfirmDepositResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appmoney.DecisionInput{TransactionID: req.Body.TransactionId, Received: req.Body.Amount}
	if req.Body.Notes != nil {
		in.Notes = *req.Body.Notes
	}
	d, err := s.money.ConfirmDeposit(ctx, a, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, d.Position)
	if d.ProposalID != "" {
		return apigen.ConfirmDeposit202JSONResponse{Message: msgSentForApproval, ProposalId: d.ProposalID}, nil
	}
	return apigen.ConfirmDeposit200JSONResponse{Message: msgDepositConfirmed}, nil
}

func (s *server) RejectDeposit(ctx context.Context, req apigen.RejectDepositRequestObject) (apigen.RejectDepositResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appmoney.DecisionInput{TransactionID: req.Body.TransactionId}
	if req.Body.Notes != nil {
		in.Notes = *req.Body.Notes
	}
	pos, err := s.money.RejectDeposit(ctx, a, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RejectDeposit200JSONResponse{Message: msgDepositRejected}, nil
}

// ChainProgress reads how far pending chain deposits have come, by deposit id
// (chainwatch.ProgressReader).
type ChainProgress interface {
	Progress(ctx context.Context, depositIDs []string) (map[string]chainwatch.Progress, error)
}

// progressOf reads the progress of the pending chain deposits among ds.
func (s *server) progressOf(ctx context.Context, ds []appmoney.Deposit) (map[string]chainwatch.Progress, error) {
	var ids []string
	for _, d := range ds {
		if d.Source == account.SourceChain && d.Status == account.StatusPending {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 || s.chainProgress == nil {
		return nil, nil
	}
	return s.chainProgress.Progress(ctx, ids)
}

// confirmationsOf is a pending chain deposit's confirmations and the number it is credited at;
// ok is false for any other deposit.
func confirmationsOf(d appmoney.Deposit, progress map[string]chainwatch.Progress) (have, needed int, ok bool) {
	if d.Source != account.SourceChain || d.Status != account.StatusPending {
		return 0, 0, false
	}
	p, found := progress[d.ID]
	if !found {
		p = chainwatch.Progress{Needed: chainwatch.Needed(d.Network)}
	}
	return int(p.Confirmations), int(p.Needed), true
}

// depositJSON maps a deposit onto the specification; withUser adds the investor (staff views).
// The QR code encodes the address alone, which every wallet reads. A pending chain deposit
// carries its confirmations from progress.
func depositJSON(d appmoney.Deposit, withUser bool, progress map[string]chainwatch.Progress) apigen.Deposit {
	out := apigen.Deposit{
		TransactionId: d.TransactionID, Amount: d.Amount.String(), Asset: d.Asset, Network: d.Network,
		Address: d.Address, QrPayload: d.Address, OnChainAmount: d.OnChainAmount, UsdRate: d.USDRate,
		TxHash: d.TxHash, Status: apigen.DepositStatus(d.Status), Received: d.Received.String(), Notes: d.Notes,
		RequestedAt: d.RequestedAt, DecidedAt: d.DecidedAt, Reference: reference.OfDeposit(d.TransactionID, d.ID),
		Source: apigen.DepositSourceDeclared,
	}
	if d.Source == account.SourceChain {
		out.Source = apigen.DepositSourceChain
	}
	if have, needed, ok := confirmationsOf(d, progress); ok {
		out.Confirmations, out.ConfirmationsNeeded = &have, &needed
	}
	if withUser {
		out.User = &apigen.DepositUser{UnderscoreId: d.UserID, Name: d.Name, Email: d.Email}
	}
	return out
}
