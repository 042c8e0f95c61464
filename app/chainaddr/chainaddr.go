// Package chainaddr gives each investor their own deposit address per watched network, derived
// from the operator's account public key at the next unused index, and answers the chain
// watcher whose addresses a block pays (docs/chain.md, "Addresses").
package chainaddr

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"clearvest/app/command"
	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/chain/hdaddr"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates chain_addresses.
var Migrations = pgmigrate.MustFromFS("chainaddr", migrationFS, "migrations")

// Deriver writes the address at an index of one account key (hdaddr.Bitcoin, hdaddr.Ethereum).
type Deriver interface {
	Address(index uint32) (string, error)
}

// ErrNotWatched: the network has no account key here, so no address of one's own exists on it.
var ErrNotWatched = domainerr.New(domainerr.RuleBroken, "Deposits on this network are not credited automatically; use the shared address and tell us about your transfer.")

// maxIndex is the last non-hardened index: an account key derives nothing above it.
const maxIndex = 1<<31 - 1

// Assets are the assets an investor is told to send to their own address on a network: those
// the watcher can price when they arrive (docs/chain.md). ETH has no price cached yet, so an
// Ethereum address is offered for USDT only.
func Assets(n payout.Network) []asset.Asset {
	switch n {
	case payout.Bitcoin:
		return []asset.Asset{asset.BTC}
	case payout.Ethereum:
		return []asset.Asset{asset.USDT}
	}
	return nil
}

// Address is an investor's own deposit address on a network.
type Address struct {
	Network payout.Network
	Address string
	Index   uint32
}

// Service hands out and looks up the addresses.
type Service struct {
	commands *command.Runner
	pool     querier
	clock    clock.Clock
	derivers map[payout.Network]Deriver
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Deps are the service's collaborators; Derivers holds one account key per network that gets
// addresses of its own.
type Deps struct {
	Pool     querier
	Commands *command.Runner
	Clock    clock.Clock
	Derivers map[payout.Network]Deriver
}

// New returns the service.
func New(d Deps) (*Service, error) {
	if d.Pool == nil || d.Commands == nil {
		return nil, errors.New("chainaddr: pool and commands are required")
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	return &Service{commands: d.Commands, pool: d.Pool, clock: d.Clock, derivers: d.Derivers}, nil
}

// Networks are the networks with addresses of one's own, in a stable order.
func (s *Service) Networks() []payout.Network {
	return slices.Sorted(maps.Keys(s.derivers))
}

// Watched reports whether the network has addresses of one's own.
func (s *Service) Watched(n payout.Network) bool { _, ok := s.derivers[n]; return ok }

// Find returns the investor's address on the network if they were given one.
func (s *Service) Find(ctx context.Context, n payout.Network, userID string) (Address, bool, error) {
	a := Address{Network: n}
	var idx int64
	err := s.pool.QueryRow(ctx, `SELECT address, idx FROM chain_addresses WHERE network = $1 AND user_id = $2`, string(n), userID).Scan(&a.Address, &idx)
	if errors.Is(err, pgx.ErrNoRows) {
		return Address{}, false, nil
	}
	if err != nil {
		return Address{}, false, fmt.Errorf("chainaddr: find: %w", err)
	}
	a.Index = uint32(idx)
	return a, true, nil
}

// AddressFor returns the investor's address on the network, giving them the next unused index
// the first time they ask. Investors asking at once get distinct indices with no gap between
// them; one investor asking twice at once gets one address.
//
// The next index is read before the command, which then takes it with command.Submit: the
// assignment's event and its row commit in one round trip, and the row's unique index refuses
// an index another investor took in between (errIndexTaken), on which the next free one is read
// again. An index is only ever taken by an assignment that committed, so the indices stay
// dense, as a wallet recovering the account key by scanning them expects.
func (s *Service) AddressFor(ctx context.Context, n payout.Network, userID string) (Address, error) {
	d, ok := s.derivers[n]
	if !ok {
		return Address{}, ErrNotWatched
	}
	stream := eventstore.StreamID(chain.AddressStream(string(n), userID))
	meta := eventstore.Metadata{ActorID: userID, ActorRole: "system"}
	for range maxAssignAttempts {
		if a, found, err := s.Find(ctx, n, userID); err != nil || found {
			return a, err
		}
		var next int64
		if err := s.pool.QueryRow(ctx, `SELECT COALESCE(max(idx) + 1, 0) FROM chain_addresses WHERE network = $1`, string(n)).Scan(&next); err != nil {
			return Address{}, fmt.Errorf("chainaddr: next index: %w", err)
		}
		idx, addr, err := derive(d, next)
		if err != nil {
			return Address{}, err
		}
		var out Address
		_, err = command.Submit(ctx, s.commands, stream, chain.NewAddressState, meta,
			func(st *chain.AddressState, w *command.Writes) error {
				if a, ok := st.Assigned(); ok {
					out = Address{Network: n, Address: a.Address, Index: a.Index}
					return nil
				}
				now := s.clock.Now()
				st.Assign(chain.AddressAssigned{Network: string(n), UserID: userID, Index: idx, Address: addr, At: now})
				w.Add(`INSERT INTO chain_addresses (network, user_id, idx, address, created_at) VALUES ($1, $2, $3, $4, $5)`,
					string(n), userID, int64(idx), addr, now)
				w.OnUnique("chain_addresses_network_idx_key", errIndexTaken)
				out = Address{Network: n, Address: addr, Index: idx}
				return nil
			})
		if errors.Is(err, errIndexTaken) {
			continue
		}
		if err != nil {
			return Address{}, fmt.Errorf("chainaddr: assign: %w", err)
		}
		return out, nil
	}
	return Address{}, ErrAssignBusy
}

// errIndexTaken: another investor's assignment committed the index this one was decided with.
var errIndexTaken = errors.New("chainaddr: the index was taken meanwhile")

// maxAssignAttempts bounds how often one request reads the next index again. Each attempt that
// loses to another assignment means that one committed, so the bound is reached only while that
// many investors are given addresses on the network at once.
const maxAssignAttempts = 100

// ErrAssignBusy refuses a request that lost every attempt to other investors' assignments.
var ErrAssignBusy = domainerr.New(domainerr.Conflict, "Many deposit addresses are being given out right now. Please try again in a moment.")

// derive returns the address at the first usable index from next: BIP 32 allows, about once in
// 2^127 indices, that none exists at one, and that index is left out.
func derive(d Deriver, next int64) (uint32, string, error) {
	for ; next <= maxIndex; next++ {
		addr, err := d.Address(uint32(next))
		if errors.Is(err, hdaddr.ErrUnusableIndex) {
			continue
		}
		return uint32(next), addr, err
	}
	return 0, "", errors.New("chainaddr: every index of the account key is taken")
}

// Owners answers, for the addresses of a block, the investors they were given to, keyed by the
// address as given. Case is ignored: Ethereum addresses travel with or without their checksum.
func (s *Service) Owners(ctx context.Context, n payout.Network, addresses []string) (map[string]string, error) {
	out := map[string]string{}
	if len(addresses) == 0 || !s.Watched(n) {
		return out, nil
	}
	byLower := make(map[string][]string, len(addresses))
	lower := make([]string, 0, len(addresses))
	for _, a := range addresses {
		l := strings.ToLower(a)
		if _, seen := byLower[l]; !seen {
			lower = append(lower, l)
		}
		byLower[l] = append(byLower[l], a)
	}
	rows, err := s.pool.Query(ctx, `SELECT lower(address), user_id FROM chain_addresses WHERE network = $1 AND lower(address) = ANY($2)`, string(n), lower)
	if err != nil {
		return nil, fmt.Errorf("chainaddr: owners: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var addr, user string
		if err := rows.Scan(&addr, &user); err != nil {
			return nil, err
		}
		for _, given := range byLower[addr] {
			out[given] = user
		}
	}
	return out, rows.Err()
}
