// Package hdaddrtest holds the private side of the deposit keys for tests: one well-known seed
// (the BIP 39 mnemonic "abandon … about", empty passphrase), its account public keys to give
// hdaddr, and the private key of any deposit address so a test can spend what it received. The
// server never imports it; it exists because the server never holds these keys.
package hdaddrtest

import (
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"clearvest/platform/chain/bitcoin"
	"clearvest/platform/chain/hdaddr"
)

// seedHex is the BIP 39 seed of "abandon abandon abandon abandon abandon abandon abandon abandon
// abandon abandon abandon about" with an empty passphrase, the seed of the BIP 84 test vectors.
const seedHex = "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"

// SLIP-132 public versions of BIP 84 account keys, as wallets export them.
var (
	versionZpub = []byte{0x04, 0xb2, 0x47, 0x46}
	versionVpub = []byte{0x04, 0x5f, 0x1c, 0xf6}
)

// Seed returns the test seed (a fresh copy each call).
func Seed() []byte {
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		panic(err)
	}
	return seed
}

// derive walks path from the seed's master key; indices at or above hdkeychain.HardenedKeyStart
// are hardened.
func derive(params *chaincfg.Params, path ...uint32) *hdkeychain.ExtendedKey {
	key, err := hdkeychain.NewMaster(Seed(), params)
	if err != nil {
		panic(err)
	}
	for _, i := range path {
		if key, err = key.Derive(i); err != nil {
			panic(fmt.Sprintf("hdaddrtest: derive %d: %v", i, err))
		}
	}
	return key
}

const h = hdkeychain.HardenedKeyStart

func bitcoinParams(network string) *chaincfg.Params {
	params, err := bitcoin.Params(network)
	if err != nil {
		panic(err)
	}
	return params
}

// bitcoinAccountPath is BIP 84's account 0: coin type 0 on mainnet, 1 on every test network.
func bitcoinAccountPath(network string) []uint32 {
	coin := uint32(1)
	if network == chaincfg.MainNetParams.Name {
		coin = 0
	}
	return []uint32{84 + h, coin + h, 0 + h}
}

// BitcoinAccount returns the BIP 84 account public key m/84'/coin'/0' of the seed for network,
// written as wallets export it: a zpub on mainnet, a vpub on the test networks.
func BitcoinAccount(network string) string {
	params := bitcoinParams(network)
	pub, err := derive(params, bitcoinAccountPath(network)...).Neuter()
	if err != nil {
		panic(err)
	}
	version := versionVpub
	if params.Name == chaincfg.MainNetParams.Name {
		version = versionZpub
	}
	pub, err = pub.CloneWithVersion(version)
	if err != nil {
		panic(err)
	}
	return pub.String()
}

// BitcoinPrivateKey returns the private key of the deposit address at index on network
// (m/84'/coin'/0'/0/index).
func BitcoinPrivateKey(network string, index uint32) *btcec.PrivateKey {
	path := append(bitcoinAccountPath(network), 0, index)
	priv, err := derive(bitcoinParams(network), path...).ECPrivKey()
	if err != nil {
		panic(err)
	}
	return priv
}

// ethereumAccountPath is BIP 44's Ethereum account 0.
var ethereumAccountPath = []uint32{44 + h, 60 + h, 0 + h}

// EthereumAccount returns the account public key m/44'/60'/0' of the seed as an xpub.
func EthereumAccount() string {
	pub, err := derive(&chaincfg.MainNetParams, ethereumAccountPath...).Neuter()
	if err != nil {
		panic(err)
	}
	return pub.String()
}

// EthereumPrivateKey returns the private key of the deposit address at index
// (m/44'/60'/0'/0/index), ready for go-ethereum's signers.
func EthereumPrivateKey(index uint32) *ecdsa.PrivateKey {
	path := append(append([]uint32(nil), ethereumAccountPath...), 0, index)
	priv, err := derive(&chaincfg.MainNetParams, path...).ECPrivKey()
	if err != nil {
		panic(err)
	}
	key, err := gethcrypto.ToECDSA(priv.Serialize())
	if err != nil {
		panic(err)
	}
	return key
}

// Derivers are the seed's account keys as the deposit-address service takes them: Bitcoin on
// network and Ethereum.
func Derivers(network string) (*hdaddr.Bitcoin, *hdaddr.Ethereum, error) {
	btc, err := hdaddr.NewBitcoin(BitcoinAccount(network), network)
	if err != nil {
		return nil, nil, err
	}
	eth, err := hdaddr.NewEthereum(EthereumAccount())
	if err != nil {
		return nil, nil, err
	}
	return btc, eth, nil
}
