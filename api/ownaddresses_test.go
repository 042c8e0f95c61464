package api_test

import (
	"net/http"
	"testing"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/chainaddr"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/domain/chain"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/chain/hdaddr/hdaddrtest"
	"clearvest/projections"
)

// The first receive addresses of the test seed's account keys (hdaddrtest, "abandon … about"):
// the BIP 84 vectors and the first Ethereum address wallets show for it.
const (
	vectorBTC0 = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
	vectorBTC1 = "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"
	vectorETH0 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
)

type addressListJSON struct {
	Addresses []struct {
		Asset         string `json:"asset"`
		Network       string `json:"network"`
		Address       string `json:"address"`
		Own           bool   `json:"own"`
		Confirmations int    `json:"confirmations"`
	} `json:"addresses"`
}

// newWatchedMoneyApp is newMoneyApp with Bitcoin and Ethereum watched: investors get their own
// addresses from the vector account keys, and the watcher waits for 3 Ethereum confirmations.
func newWatchedMoneyApp(t *testing.T) *app {
	t.Helper()
	env := kyctest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec)
		return nil
	}, money.Migrations, chainaddr.Migrations))
	svc := newMoneyService(t, env.Env, env.Commands, nil, env.Clock)
	btc, eth, err := hdaddrtest.Derivers("mainnet")
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := chainaddr.New(chainaddr.Deps{Pool: env.Pool, Commands: env.Commands, Clock: env.Clock,
		Derivers: map[payout.Network]chainaddr.Deriver{payout.Bitcoin: btc, payout.Ethereum: eth}})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, env.Env, func(d *api.Deps) {
		d.Money, d.KYC, d.ChainAddresses = svc, env.KYC, addrs
		d.ChainConfirmations = map[payout.Network]uint64{payout.Ethereum: 3, payout.Bitcoin: 2}
	})
}

func addressList(t *testing.T, c *client) map[string]struct {
	address string
	own     bool
	confs   int
} {
	t.Helper()
	res := c.do(http.MethodGet, "/api/payments/addresses", nil)
	expect(t, res, http.StatusOK)
	out := map[string]struct {
		address string
		own     bool
		confs   int
	}{}
	for _, a := range decodeJSON[addressListJSON](t, res).Addresses {
		out[a.Asset+"/"+a.Network] = struct {
			address string
			own     bool
			confs   int
		}{a.Address, a.Own, a.Confirmations}
	}
	return out
}

// TestInvestorsSeeTheirOwnAddressOnWatchedNetworks: a visitor sees the shared addresses; each
// investor sees their own BTC and USDT-on-Ethereum addresses, given in the order they first
// ask and the same ever after, with the watcher's confirmations; TRON stays shared. An admin
// viewing the site as a user hands out nothing on the user's behalf.
func TestInvestorsSeeTheirOwnAddressOnWatchedNetworks(t *testing.T) {
	t.Parallel()
	a := newWatchedMoneyApp(t)
	visitor := addressList(t, a.browser(t))
	if v := visitor["BTC/BTC"]; v.address != testBTCAddress || v.own {
		t.Fatalf("visitor's BTC: %+v, want the shared address", v)
	}
	if _, ok := visitor["USDT/ERC20"]; ok {
		t.Fatalf("visitor sees an Ethereum address no one configured: %+v", visitor)
	}

	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	oscar, _ := a.member(t, "oscar@example.com", "subscriber")
	zoeC, zoe := a.member(t, "zoe@example.com", "subscriber")
	mine := addressList(t, ivy)
	if b := mine["BTC/BTC"]; b.address != vectorBTC0 || !b.own || b.confs != 2 {
		t.Fatalf("ivy's BTC: %+v, want her own %s (index 0)", b, vectorBTC0)
	}
	if e := mine["USDT/ERC20"]; e.address != vectorETH0 || !e.own || e.confs != 3 {
		t.Fatalf("ivy's USDT on Ethereum: %+v, want her own %s after 3 confirmations", e, vectorETH0)
	}
	if tr := mine["USDT/TRC20"]; tr.address != testTRONAddress || tr.own {
		t.Fatalf("ivy's TRON: %+v, want the shared address", tr)
	}
	if _, ok := mine["ETH/ERC20"]; ok {
		t.Fatalf("ETH offered on an own address although it has no price: %+v", mine)
	}
	if b := addressList(t, oscar)["BTC/BTC"]; b.address != vectorBTC1 || !b.own {
		t.Fatalf("oscar's BTC: %+v, want %s (index 1)", b, vectorBTC1)
	}
	if b := addressList(t, ivy)["BTC/BTC"]; b.address != vectorBTC0 {
		t.Fatalf("ivy again: %+v, want the same %s", b, vectorBTC0)
	}

	admin, _ := a.member(t, "ada@example.com", "admin")
	stepUp(t, admin)
	impersonate(t, admin, zoe.ID)
	if b := addressList(t, admin)["BTC/BTC"]; b.own {
		t.Fatalf("viewing as zoe, who has no address yet: %+v, want the shared one", b)
	}
	if b := addressList(t, zoeC)["BTC/BTC"]; !b.own || b.address == vectorBTC0 || b.address == vectorBTC1 {
		t.Fatalf("zoe: %+v, want her own third address", b)
	}
}
