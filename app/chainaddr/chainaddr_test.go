package chainaddr_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/chainaddr"
	"clearvest/app/command"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/chain/hdaddr"
	"clearvest/platform/chain/hdaddr/hdaddrtest"
	"clearvest/projections"
)

// The BIP 84 vectors of the test seed (hdaddrtest, "abandon … about"): its first two receive
// addresses, and the first Ethereum address of the same mnemonic (m/44'/60'/0'/0/0).
const (
	btcAddr0 = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
	btcAddr1 = "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"
	ethAddr0 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
)

type env struct {
	svc      *chainaddr.Service
	commands *command.Runner
	btc      *hdaddr.Bitcoin
}

func newEnv(t *testing.T) env {
	t.Helper()
	e := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec)
		return nil
	}, chainaddr.Migrations))
	btc, eth, err := hdaddrtest.Derivers("mainnet")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := chainaddr.New(chainaddr.Deps{Pool: e.Pool, Commands: e.Commands, Clock: e.Clock,
		Derivers: map[payout.Network]chainaddr.Deriver{payout.Bitcoin: btc, payout.Ethereum: eth}})
	if err != nil {
		t.Fatal(err)
	}
	return env{svc: svc, commands: e.Commands, btc: btc}
}

// TestInvestorsGetTheNextIndexInTheOrderTheyAsk: the first investor gets index 0 (the BIP 84
// vector), the next index 1; asking again gives the same address; each network counts apart;
// the assignment is an event on the investor's stream.
func TestInvestorsGetTheNextIndexInTheOrderTheyAsk(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ann, bob := uuid.NewString(), uuid.NewString()
	want := func(user string, n payout.Network, addr string, idx uint32) {
		t.Helper()
		a, err := e.svc.AddressFor(ctx, n, user)
		if err != nil {
			t.Fatal(err)
		}
		if a.Address != addr || a.Index != idx || a.Network != n {
			t.Fatalf("%s on %s: %+v, want %s at %d", user, n, a, addr, idx)
		}
	}
	want(ann, payout.Bitcoin, btcAddr0, 0)
	want(bob, payout.Bitcoin, btcAddr1, 1)
	want(ann, payout.Bitcoin, btcAddr0, 0)
	want(bob, payout.Ethereum, ethAddr0, 0)

	st, err := command.Load(ctx, e.commands, eventstore.StreamID(chain.AddressStream(string(payout.Bitcoin), bob)), chain.NewAddressState)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := st.Assigned(); !ok || got.Address != btcAddr1 || got.Index != 1 || got.UserID != bob || st.Version() != 1 {
		t.Fatalf("bob's stream: %+v (version %d), want one chain.address_assigned of index 1", got, st.Version())
	}
	if _, err := e.svc.AddressFor(ctx, payout.Tron, ann); err == nil || !strings.Contains(err.Error(), "not credited automatically") {
		t.Fatalf("TRON, not watched: %v, want ErrNotWatched", err)
	}
}

// TestManyInvestorsAtOnceGetDistinctIndices: forty investors asking at once, each twice, get
// forty distinct addresses at indices 0…39, each the derivation of its index, one per investor.
func TestManyInvestorsAtOnceGetDistinctIndices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const investors = 40
	users := make([]string, investors)
	for i := range users {
		users[i] = uuid.NewString()
	}
	got := make([][2]chainaddr.Address, investors)
	var wg sync.WaitGroup
	errs := make(chan error, 2*investors)
	for i, u := range users {
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := e.svc.AddressFor(context.Background(), payout.Bitcoin, u)
				got[i][k] = a
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var indices []int
	for i, pair := range got {
		if pair[0] != pair[1] {
			t.Fatalf("investor %d asked twice at once and got %+v and %+v", i, pair[0], pair[1])
		}
		want, err := e.btc.Address(pair[0].Index)
		if err != nil {
			t.Fatal(err)
		}
		if pair[0].Address != want {
			t.Fatalf("investor %d: %s at index %d, derivation says %s", i, pair[0].Address, pair[0].Index, want)
		}
		indices = append(indices, int(pair[0].Index))
	}
	sort.Ints(indices)
	for i, idx := range indices {
		if idx != i {
			t.Fatalf("indices %v, want 0…%d each once", indices, investors-1)
		}
	}
}

// TestOwnersAnswersABlocksAddressesInOneQuestion: only given addresses have owners; Ethereum
// addresses match in any case and come back keyed as asked.
func TestOwnersAnswersABlocksAddressesInOneQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ann := uuid.NewString()
	if _, err := e.svc.AddressFor(ctx, payout.Bitcoin, ann); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddressFor(ctx, payout.Ethereum, ann); err != nil {
		t.Fatal(err)
	}
	btc, err := e.svc.Owners(ctx, payout.Bitcoin, []string{btcAddr1, btcAddr0, "bc1qunknown"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(btc) != fmt.Sprintf("map[%s:%s]", btcAddr0, ann) {
		t.Fatalf("bitcoin owners %v, want only %s → %s", btc, btcAddr0, ann)
	}
	lower := strings.ToLower(ethAddr0)
	eth, err := e.svc.Owners(ctx, payout.Ethereum, []string{lower, ethAddr0})
	if err != nil {
		t.Fatal(err)
	}
	if len(eth) != 2 || eth[lower] != ann || eth[ethAddr0] != ann {
		t.Fatalf("ethereum owners %v, want both spellings → %s", eth, ann)
	}
	// The Bitcoin address is not an Ethereum one: networks never mix.
	if other, _ := e.svc.Owners(ctx, payout.Ethereum, []string{btcAddr0}); len(other) != 0 {
		t.Fatalf("a Bitcoin address owned on Ethereum: %v", other)
	}
}
