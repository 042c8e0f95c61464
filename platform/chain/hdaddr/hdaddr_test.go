package hdaddr_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"clearvest/domain/domainerr"
	"clearvest/platform/chain/bitcoin"
	"clearvest/platform/chain/hdaddr"
	"clearvest/platform/chain/hdaddr/hdaddrtest"
)

// The BIP 84 test vectors: the account key of "abandon … about" and its first two receive
// addresses.
const (
	bip84Zpub  = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
	bip84Addr0 = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
	bip84Addr1 = "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"
	// The first Ethereum address of the same mnemonic at m/44'/60'/0'/0/0, as wallets show it.
	ethAddr0 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
)

const h = hdkeychain.HardenedKeyStart

var (
	versionZpub = []byte{0x04, 0xb2, 0x47, 0x46}
	versionZprv = []byte{0x04, 0xb2, 0x43, 0x0c}
	versionYpub = []byte{0x04, 0x9d, 0x7c, 0xb2}
	versionVpub = []byte{0x04, 0x5f, 0x1c, 0xf6}
)

// fromSeed derives path from the vector seed's master key, independently of hdaddrtest.
func fromSeed(t testing.TB, path ...uint32) *hdkeychain.ExtendedKey {
	t.Helper()
	key, err := hdkeychain.NewMaster(hdaddrtest.Seed(), &chaincfg.MainNetParams)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range path {
		if key, err = key.Derive(i); err != nil {
			t.Fatal(err)
		}
	}
	return key
}

func neuter(t testing.TB, k *hdkeychain.ExtendedKey) *hdkeychain.ExtendedKey {
	t.Helper()
	pub, err := k.Neuter()
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func relabel(t testing.TB, k *hdkeychain.ExtendedKey, version []byte) string {
	t.Helper()
	c, err := k.CloneWithVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	return c.String()
}

func bitcoinAddresses(t *testing.T, key, network string, n uint32) []string {
	t.Helper()
	b, err := hdaddr.NewBitcoin(key, network)
	if err != nil {
		t.Fatalf("NewBitcoin(%s, %s): %v", key, network, err)
	}
	var out []string
	for i := range n {
		a, err := b.Address(i)
		if err != nil {
			t.Fatalf("Address(%d): %v", i, err)
		}
		out = append(out, a)
	}
	return out
}

func TestBitcoinBIP84Vectors(t *testing.T) {
	account := neuter(t, fromSeed(t, 84+h, 0+h, 0+h))
	if got := relabel(t, account, versionZpub); got != bip84Zpub {
		t.Fatalf("account key from the seed = %s, want the BIP 84 vector %s", got, bip84Zpub)
	}
	if got := hdaddrtest.BitcoinAccount("mainnet"); got != bip84Zpub {
		t.Fatalf("hdaddrtest.BitcoinAccount(mainnet) = %s, want %s", got, bip84Zpub)
	}
	xpub := account.String()
	if !strings.HasPrefix(xpub, "xpub") {
		t.Fatalf("the account key's BIP 32 form is %s", xpub)
	}
	want := []string{bip84Addr0, bip84Addr1}
	for _, key := range []string{bip84Zpub, xpub} {
		got := bitcoinAddresses(t, key, "mainnet", 2)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%.4s… index %d = %s, want %s", key, i, got[i], want[i])
			}
		}
	}
}

// TestBitcoinTestNetworks checks every test network writes its own prefix, takes both the tpub
// and vpub form, and that the address belongs to the private key hdaddrtest gives for spending.
func TestBitcoinTestNetworks(t *testing.T) {
	for network, prefix := range map[string]string{
		"testnet3": "tb1q", "testnet4": "tb1q", "signet": "tb1q", "regtest": "bcrt1q", "simnet": "sb1q",
	} {
		t.Run(network, func(t *testing.T) {
			vpub := hdaddrtest.BitcoinAccount(network)
			if !strings.HasPrefix(vpub, "vpub") {
				t.Fatalf("BitcoinAccount(%s) = %s, want a vpub", network, vpub)
			}
			account := neuter(t, fromSeed(t, 84+h, 1+h, 0+h))
			if got := relabel(t, account, versionVpub); got != vpub {
				t.Fatalf("vpub from the seed = %s, hdaddrtest says %s", got, vpub)
			}
			tpub := relabel(t, account, []byte{0x04, 0x35, 0x87, 0xcf})
			fromV := bitcoinAddresses(t, vpub, network, 3)
			fromT := bitcoinAddresses(t, tpub, network, 3)
			params, err := bitcoin.Params(network)
			if err != nil {
				t.Fatal(err)
			}
			for i := range fromV {
				if fromV[i] != fromT[i] {
					t.Errorf("index %d: vpub gives %s, tpub gives %s", i, fromV[i], fromT[i])
				}
				if !strings.HasPrefix(fromV[i], prefix) {
					t.Errorf("index %d = %s, want prefix %s", i, fromV[i], prefix)
				}
				priv := hdaddrtest.BitcoinPrivateKey(network, uint32(i))
				spend, err := address.NewAddressWitnessPubKeyHash(address.Hash160(priv.PubKey().SerializeCompressed()), params)
				if err != nil {
					t.Fatal(err)
				}
				if spend.EncodeAddress() != fromV[i] {
					t.Errorf("index %d: private key pays %s, derived address is %s", i, spend.EncodeAddress(), fromV[i])
				}
			}
			if fromV[0] == fromV[1] || fromV[1] == fromV[2] {
				t.Errorf("indices share an address: %v", fromV)
			}
		})
	}
	// The mainnet private key of the vector's index 1.
	priv := hdaddrtest.BitcoinPrivateKey("mainnet", 1)
	spend, err := address.NewAddressWitnessPubKeyHash(address.Hash160(priv.PubKey().SerializeCompressed()), &chaincfg.MainNetParams)
	if err != nil || spend.EncodeAddress() != bip84Addr1 {
		t.Errorf("mainnet private key 1 pays %v (%v), want %s", spend, err, bip84Addr1)
	}
}

func TestEthereumVector(t *testing.T) {
	account := neuter(t, fromSeed(t, 44+h, 60+h, 0+h)).String()
	if got := hdaddrtest.EthereumAccount(); got != account {
		t.Fatalf("hdaddrtest.EthereumAccount() = %s, derived %s", got, account)
	}
	e, err := hdaddr.NewEthereum(account)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Address(0)
	if err != nil {
		t.Fatal(err)
	}
	if got != ethAddr0 {
		t.Fatalf("index 0 = %s, want %s", got, ethAddr0)
	}
	for i := range uint32(3) {
		a, err := e.Address(i)
		if err != nil {
			t.Fatal(err)
		}
		if spend := gethcrypto.PubkeyToAddress(hdaddrtest.EthereumPrivateKey(i).PublicKey).Hex(); spend != a {
			t.Errorf("index %d: derived %s, private key controls %s", i, a, spend)
		}
	}
}

func TestRefusals(t *testing.T) {
	master := fromSeed(t)
	btcAccountPriv := fromSeed(t, 84+h, 0+h, 0+h)
	btcAccount := neuter(t, btcAccountPriv)
	ethAccount := neuter(t, fromSeed(t, 44+h, 60+h, 0+h))
	receive, err := btcAccount.Derive(0)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := []byte(bip84Zpub)
	corrupt[40] ^= 1 // one letter's case flipped: the checksum no longer matches
	tests := []struct {
		name, key, network string
		want               error
	}{
		{"xprv master", master.String(), "mainnet", hdaddr.ErrPrivateKey},
		{"xprv account", btcAccountPriv.String(), "mainnet", hdaddr.ErrPrivateKey},
		{"zprv account", relabel(t, btcAccountPriv, versionZprv), "mainnet", hdaddr.ErrPrivateKey},
		{"zpub on regtest", bip84Zpub, "regtest", hdaddr.ErrWrongNetwork},
		{"xpub on testnet3", btcAccount.String(), "testnet3", hdaddr.ErrWrongNetwork},
		{"vpub on mainnet", hdaddrtest.BitcoinAccount("regtest"), "mainnet", hdaddr.ErrWrongNetwork},
		{"ypub", relabel(t, btcAccount, versionYpub), "mainnet", hdaddr.ErrOtherAddressType},
		{"master xpub (depth 0)", neuter(t, master).String(), "mainnet", hdaddr.ErrNotAccountKey},
		{"receive chain (depth 4)", relabel(t, receive, versionZpub), "mainnet", hdaddr.ErrNotAccountKey},
		{"bad checksum", string(corrupt), "mainnet", hdaddr.ErrMalformed},
		{"garbage", "not a key at all", "mainnet", hdaddr.ErrMalformed},
		{"an address", bip84Addr0, "mainnet", hdaddr.ErrMalformed},
		{"empty", "", "mainnet", hdaddr.ErrMalformed},
		{"unknown network", bip84Zpub, "dogenet", hdaddr.ErrUnknownNetwork},
	}
	for _, tc := range tests {
		t.Run("bitcoin/"+tc.name, func(t *testing.T) {
			b, err := hdaddr.NewBitcoin(tc.key, tc.network)
			checkRefusal(t, b == nil, err, tc.want)
		})
	}

	ethTests := []struct {
		name, key string
		want      error
	}{
		{"xprv account", fromSeed(t, 44+h, 60+h, 0+h).String(), hdaddr.ErrPrivateKey},
		{"zpub", bip84Zpub, hdaddr.ErrOtherAddressType},
		{"tpub", relabel(t, ethAccount, []byte{0x04, 0x35, 0x87, 0xcf}), hdaddr.ErrWrongNetwork},
		{"master xpub (depth 0)", neuter(t, master).String(), hdaddr.ErrNotAccountKey},
		{"address key (depth 5)", neuter(t, fromSeed(t, 44+h, 60+h, 0+h, 0, 0)).String(), hdaddr.ErrNotAccountKey},
		{"garbage", "xpub-garbage", hdaddr.ErrMalformed},
		{"an address", ethAddr0, hdaddr.ErrMalformed},
		{"empty", "", hdaddr.ErrMalformed},
	}
	for _, tc := range ethTests {
		t.Run("ethereum/"+tc.name, func(t *testing.T) {
			e, err := hdaddr.NewEthereum(tc.key)
			checkRefusal(t, e == nil, err, tc.want)
		})
	}
}

func checkRefusal(t *testing.T, nilResult bool, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if !nilResult {
		t.Error("a refused key still gave a deriver")
	}
	var c domainerr.Classified
	if !errors.As(err, &c) || c.Kind() != domainerr.Invalid {
		t.Errorf("err %v is not classified Invalid", err)
	}
	if strings.Contains(err.Error(), "prv") || strings.Contains(err.Error(), "hdkeychain") {
		t.Errorf("message %q leaks key material or internals", err.Error())
	}
}

func TestHardenedIndexRefused(t *testing.T) {
	b, err := hdaddr.NewBitcoin(bip84Zpub, "mainnet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Address(h); !errors.Is(err, hdaddr.ErrHardenedIndex) {
		t.Errorf("Bitcoin Address(2^31) err = %v", err)
	}
	if _, err := b.Address(h - 1); err != nil {
		t.Errorf("Bitcoin Address(2^31-1): %v", err)
	}
	e, err := hdaddr.NewEthereum(hdaddrtest.EthereumAccount())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Address(^uint32(0)); !errors.Is(err, hdaddr.ErrHardenedIndex) {
		t.Errorf("Ethereum Address(2^32-1) err = %v", err)
	}
}

func FuzzNewBitcoin(f *testing.F) {
	f.Add(bip84Zpub, "mainnet", uint32(0))
	f.Add(hdaddrtest.BitcoinAccount("regtest"), "regtest", uint32(7))
	f.Add(hdaddrtest.BitcoinAccount("simnet"), "simnet", uint32(h))
	f.Add(fromSeed(f, 84+h).String(), "mainnet", uint32(1))
	f.Add("xpub", "testnet4", uint32(0))
	f.Add("", "", uint32(0))
	f.Fuzz(func(t *testing.T, key, network string, index uint32) {
		b, err := hdaddr.NewBitcoin(key, network)
		if err != nil {
			if b != nil {
				t.Fatal("a deriver beside an error")
			}
			return
		}
		a, err := b.Address(index)
		if err == nil && a == "" {
			t.Fatal("empty address without an error")
		}
	})
}

func FuzzNewEthereum(f *testing.F) {
	f.Add(hdaddrtest.EthereumAccount(), uint32(0))
	f.Add(bip84Zpub, uint32(1))
	f.Add(fromSeed(f, 44+h, 60+h, 0+h).String(), uint32(2))
	f.Add("0x", uint32(0))
	f.Fuzz(func(t *testing.T, key string, index uint32) {
		e, err := hdaddr.NewEthereum(key)
		if err != nil {
			if e != nil {
				t.Fatal("a deriver beside an error")
			}
			return
		}
		a, err := e.Address(index)
		if err == nil && (len(a) != 42 || !strings.HasPrefix(a, "0x")) {
			t.Fatalf("address %q is not 0x and 40 hex digits", a)
		}
	})
}
