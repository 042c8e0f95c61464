// Package hdaddr turns an account-level extended public key into deposit addresses, one per
// index, so each investor can be given an address of their own while the keys that spend from
// those addresses stay with the operator, offline. The server only ever holds public keys: a
// private key given here is refused, never used.
//
// Bitcoin follows BIP 84 (native SegWit, P2WPKH): the account key is m/84'/coin'/0' and address i
// is m/84'/coin'/0'/0/i. Ethereum follows BIP 44: the account key is m/44'/60'/0' and address i is
// m/44'/60'/0'/0/i. Both are the paths common wallets use, so an operator can check any address
// Clearvest hands out against their own wallet.
package hdaddr

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"clearvest/domain/domainerr"
	"clearvest/platform/chain/bitcoin"
)

// AccountDepth is the depth of an account key (purpose' / coin' / account').
const AccountDepth = 3

// Refusals of an extended key. All are Invalid: the operator gave the wrong thing.
var (
	ErrMalformed      = domainerr.New(domainerr.Invalid, "This is not an extended public key (xpub, zpub, tpub or vpub).")
	ErrPrivateKey     = domainerr.New(domainerr.Invalid, "This is an extended private key. Give the account's extended public key instead: the server must never hold a private key.")
	ErrWrongNetwork   = domainerr.New(domainerr.Invalid, "This extended public key belongs to another network.")
	ErrNotAccountKey  = domainerr.New(domainerr.Invalid, "This extended public key is not an account key (depth 3, such as m/84'/0'/0' or m/44'/60'/0').")
	ErrUnknownNetwork = domainerr.New(domainerr.Invalid, "Unknown Bitcoin network (mainnet, testnet3, testnet4, signet, regtest, simnet).")
	ErrHardenedIndex  = domainerr.New(domainerr.Invalid, "An address index must be below 2^31: hardened children cannot be derived from a public key.")
	ErrUnusableIndex  = domainerr.New(domainerr.Invalid, "No address exists at this index; use the next one.")
	// ErrOtherAddressType: a ypub/upub (BIP 49, wrapped SegWit) for Bitcoin, or a Bitcoin SegWit
	// key for Ethereum.
	ErrOtherAddressType = domainerr.New(domainerr.Invalid, "This extended public key is for another address type (only native SegWit, BIP 84, is used for Bitcoin).")
)

// SLIP-132 and BIP 32 version bytes. Only the version differs between an xpub and a zpub of the
// same key; hdkeychain knows the BIP 32 ones, so SLIP-132 keys are re-labelled before use.
var (
	versionXpub = []byte{0x04, 0x88, 0xb2, 0x1e}
	versionZpub = []byte{0x04, 0xb2, 0x47, 0x46}
	versionYpub = []byte{0x04, 0x9d, 0x7c, 0xb2}
	versionTpub = []byte{0x04, 0x35, 0x87, 0xcf}
	versionVpub = []byte{0x04, 0x5f, 0x1c, 0xf6}
	versionUpub = []byte{0x04, 0x4a, 0x52, 0x62}
	versionSpub = []byte{0x04, 0x20, 0xbd, 0x3a} // btcd's simnet BIP 32 version
)

// parseAccount parses an account-level extended public key and checks what is common to every
// chain: it is public, well-formed and at account depth. It returns the key and its version.
func parseAccount(extendedKey string) (*hdkeychain.ExtendedKey, []byte, error) {
	if extendedKey == "" {
		return nil, nil, ErrMalformed
	}
	key, err := hdkeychain.NewKeyFromString(extendedKey)
	if err != nil {
		return nil, nil, ErrMalformed.Wrap(err)
	}
	if key.IsPrivate() {
		// Do not keep it around longer than needed.
		key.Zero()
		return nil, nil, ErrPrivateKey
	}
	version := key.Version()
	if key.Depth() != AccountDepth {
		return nil, nil, ErrNotAccountKey.WithMessage(fmt.Sprintf(
			"This extended public key is at depth %d, not an account key (depth 3, such as m/84'/0'/0' or m/44'/60'/0').", key.Depth()))
	}
	return key, version, nil
}

// external derives the receive chain (…/0) of an account, from which address i is the child i.
func external(account *hdkeychain.ExtendedKey) (*hdkeychain.ExtendedKey, error) {
	chain, err := account.Derive(0)
	if err != nil {
		return nil, ErrMalformed.Wrap(err)
	}
	return chain, nil
}

// child derives the public key of address index on a receive chain, as compressed SEC bytes.
func child(chain *hdkeychain.ExtendedKey, index uint32) ([]byte, error) {
	if index >= hdkeychain.HardenedKeyStart {
		return nil, ErrHardenedIndex
	}
	k, err := chain.Derive(index)
	if errors.Is(err, hdkeychain.ErrInvalidChild) {
		// BIP 32: about 1 in 2^127 indices has no key; the caller skips to the next index.
		return nil, ErrUnusableIndex.Wrap(err)
	}
	if err != nil {
		return nil, fmt.Errorf("hdaddr: derive index %d: %w", index, err)
	}
	pub, err := k.ECPubKey()
	if err != nil {
		return nil, fmt.Errorf("hdaddr: public key of index %d: %w", index, err)
	}
	return pub.SerializeCompressed(), nil
}

// Bitcoin derives native SegWit (P2WPKH, bech32) deposit addresses of one account. It is
// immutable and safe for concurrent use.
type Bitcoin struct {
	params *chaincfg.Params
	chain  *hdkeychain.ExtendedKey // m/84'/coin'/0'/0
}

// NewBitcoin accepts the account key m/84'/coin'/0' as an xpub or zpub on mainnet, or a tpub or
// vpub on the test networks (testnet3, testnet4, signet, regtest; simnet also takes btcd's spub).
// network is one of the names of bitcoin.Params.
func NewBitcoin(extendedKey string, network string) (*Bitcoin, error) {
	params, err := bitcoin.Params(network)
	if err != nil {
		return nil, ErrUnknownNetwork.Wrap(err)
	}
	key, version, err := parseAccount(extendedKey)
	if err != nil {
		return nil, err
	}
	mainnet := params.Name == chaincfg.MainNetParams.Name
	switch {
	case bytes.Equal(version, versionXpub), bytes.Equal(version, versionZpub):
		if !mainnet {
			return nil, ErrWrongNetwork.WithMessage(fmt.Sprintf("This is a mainnet extended public key; the Bitcoin network here is %s (give a tpub or vpub).", network))
		}
	case bytes.Equal(version, versionTpub), bytes.Equal(version, versionVpub):
		if mainnet {
			return nil, ErrWrongNetwork.WithMessage("This is a test-network extended public key; the Bitcoin network here is mainnet (give an xpub or zpub).")
		}
	case bytes.Equal(version, versionSpub):
		if params.Name != chaincfg.SimNetParams.Name {
			return nil, ErrWrongNetwork.WithMessage(fmt.Sprintf("This is a simnet extended public key; the Bitcoin network here is %s.", network))
		}
	case bytes.Equal(version, versionYpub), bytes.Equal(version, versionUpub):
		return nil, ErrOtherAddressType
	default:
		return nil, ErrMalformed
	}
	// The version only labels the key; derivation ignores it. Re-label it as the network's
	// BIP 32 public version so every key hdkeychain hands back is consistent.
	key, err = key.CloneWithVersion(params.HDPublicKeyID[:])
	if err != nil {
		return nil, ErrMalformed.Wrap(err)
	}
	chain, err := external(key)
	if err != nil {
		return nil, err
	}
	return &Bitcoin{params: params, chain: chain}, nil
}

// Address returns the P2WPKH address m/84'/coin'/0'/0/index as the network writes it (bc1…,
// tb1…, bcrt1…, sb1…).
func (b *Bitcoin) Address(index uint32) (string, error) {
	pub, err := child(b.chain, index)
	if err != nil {
		return "", err
	}
	addr, err := address.NewAddressWitnessPubKeyHash(address.Hash160(pub), b.params)
	if err != nil {
		return "", fmt.Errorf("hdaddr: address of index %d: %w", index, err)
	}
	return addr.EncodeAddress(), nil
}

// Ethereum derives EIP-55 checksummed deposit addresses of one account. It is immutable and
// safe for concurrent use.
type Ethereum struct {
	chain *hdkeychain.ExtendedKey // m/44'/60'/0'/0
}

// NewEthereum accepts the account key m/44'/60'/0' as an xpub, the form Ethereum wallets export
// (Ethereum has no registered version bytes of its own, and one key serves every Ethereum
// network).
func NewEthereum(extendedKey string) (*Ethereum, error) {
	key, version, err := parseAccount(extendedKey)
	if err != nil {
		return nil, err
	}
	switch {
	case bytes.Equal(version, versionXpub):
	case bytes.Equal(version, versionTpub), bytes.Equal(version, versionVpub), bytes.Equal(version, versionSpub):
		return nil, ErrWrongNetwork.WithMessage("This is a Bitcoin test-network extended public key; an Ethereum account key is an xpub.")
	case bytes.Equal(version, versionZpub), bytes.Equal(version, versionYpub), bytes.Equal(version, versionUpub):
		return nil, ErrOtherAddressType.WithMessage("This is a Bitcoin SegWit account key; an Ethereum account key (m/44'/60'/0') is an xpub.")
	default:
		return nil, ErrMalformed
	}
	chain, err := external(key)
	if err != nil {
		return nil, err
	}
	return &Ethereum{chain: chain}, nil
}

// Address returns the address of m/44'/60'/0'/0/index with its EIP-55 checksum (0x…).
func (e *Ethereum) Address(index uint32) (string, error) {
	compressed, err := child(e.chain, index)
	if err != nil {
		return "", err
	}
	pub, err := gethcrypto.DecompressPubkey(compressed)
	if err != nil {
		return "", fmt.Errorf("hdaddr: public key of index %d: %w", index, err)
	}
	return gethcrypto.PubkeyToAddress(*pub).Hex(), nil
}
