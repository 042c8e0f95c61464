package payout

import (
	"encoding/hex"
	"strings"

	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/btcsuite/btcd/btcutil/bech32"
	"golang.org/x/crypto/sha3"

	"clearvest/domain/domainerr"
)

// AddressField is the input a wallet address error is about.
const AddressField = "walletAddress"

// Errors returned by ValidateAddress. Every address error matches ErrInvalidAddress under
// errors.Is and names the field "walletAddress"; the message names the network.
var (
	ErrInvalidAddress = fieldError(AddressField, "Please enter a valid wallet address")
	ErrEmptyAddress   = ErrInvalidAddress.WithMessage("Please enter a wallet address")
	// ErrHiddenCharacters: a space, line break or invisible character inside the address,
	// usually from copying it out of a message or a PDF.
	ErrHiddenCharacters = ErrInvalidAddress.WithMessage("The wallet address contains spaces or hidden characters; please copy it again")
	ErrTestnetAddress   = ErrInvalidAddress.WithMessage("This is a Bitcoin testnet address; please enter a Bitcoin mainnet address")
	// ErrChecksumCase: an Ethereum address in mixed case whose capitals do not match its EIP-55
	// checksum, which means a character was mistyped.
	ErrChecksumCase = ErrInvalidAddress.WithMessage("This Ethereum address has a typo (its capital letters do not match its checksum); please copy it again")
)

// maxAddressLength is longer than any valid address (a bech32 address has at most 90 characters);
// anything longer is refused before it is decoded.
const maxAddressLength = 100

// ValidateAddress returns nil when address, trimmed of surrounding whitespace, is a valid mainnet
// address on the network with the given code (see Network), and otherwise a field error for
// "walletAddress" that tells the user what is wrong in their words.
//
//   - BTC: base58check P2PKH ("1…", version 0x00) or P2SH ("3…", version 0x05); or a segwit
//     address "bc1…" (BIP-173/350): witness version 0 with a 20- or 32-byte program and a bech32
//     checksum, or version 1 to 16 with a 2- to 40-byte program and a bech32m checksum; all lower
//     or all upper case. Testnet and regtest addresses are refused.
//   - ERC20: "0x" and 40 hexadecimal digits. In mixed case the capitals must match the EIP-55
//     checksum; all lower or all upper case carries no checksum and is accepted.
//   - TRC20: base58check with version byte 0x41 and a 20-byte payload: 34 characters, "T…".
//
// Ethereum and TRON testnets use the same address formats as their mainnets, so only Bitcoin's
// testnet addresses can be told apart and refused.
func ValidateAddress(network, address string) error {
	_, err := NormalizeAddress(network, address)
	return err
}

// NormalizeAddress is ValidateAddress that also returns the address as it should be stored and
// paid to: trimmed, otherwise exactly as the user wrote it (its case is the EIP-55 checksum).
func NormalizeAddress(network, address string) (string, error) {
	n := Network(network)
	var check func(string) error
	switch n {
	case Bitcoin:
		check = checkBitcoin
	case Ethereum:
		check = checkEthereum
	case Tron:
		check = checkTron
	default:
		return "", ErrUnknownNetwork
	}
	s := strings.TrimSpace(address)
	if s == "" {
		return "", ErrEmptyAddress
	}
	// Every address of every network is printable ASCII without spaces.
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return "", ErrHiddenCharacters
		}
	}
	if len(s) > maxAddressLength {
		return "", invalid(n)
	}
	if err := check(s); err != nil {
		return "", err
	}
	return s, nil
}

func invalid(n Network) *domainerr.Error {
	return ErrInvalidAddress.WithMessage("Please enter a valid " + networks[n].name + " address")
}

// Bitcoin

const (
	versionP2PKH = 0x00 // mainnet pay-to-public-key-hash, "1…"
	versionP2SH  = 0x05 // mainnet pay-to-script-hash, "3…"
	// Testnet, signet and regtest versions: refused with a message of their own.
	versionTestP2PKH = 0x6f
	versionTestP2SH  = 0xc4
)

func checkBitcoin(s string) error {
	lower := strings.ToLower(s)
	for _, hrp := range []string{"bc1", "tb1", "bcrt1"} {
		if strings.HasPrefix(lower, hrp) {
			return checkSegwit(s)
		}
	}
	version, payload, ok := decodeBase58Check(s)
	switch {
	case ok && len(payload) == 20 && (version == versionP2PKH || version == versionP2SH):
		return nil
	case ok && len(payload) == 20 && (version == versionTestP2PKH || version == versionTestP2SH):
		return ErrTestnetAddress
	}
	return invalid(Bitcoin)
}

// checkSegwit validates a segwit address as BIP-173 and BIP-350 specify: a bech32 or bech32m
// string of at most 90 characters in one case, the "bc" prefix, a witness version of 0 to 16,
// a program of 2 to 40 bytes (20 or 32 for version 0), and the checksum variant that the version
// requires: bech32 for version 0, bech32m for every later one.
func checkSegwit(s string) error {
	hrp, data, variant, err := bech32.DecodeGeneric(s)
	if err != nil || len(data) < 1 {
		return invalid(Bitcoin)
	}
	witnessVersion := data[0]
	program, err := bech32.ConvertBits(data[1:], 5, 8, false)
	if err != nil || witnessVersion > 16 || len(program) < 2 || len(program) > 40 {
		return invalid(Bitcoin)
	}
	if witnessVersion == 0 && len(program) != 20 && len(program) != 32 {
		return invalid(Bitcoin)
	}
	if (witnessVersion == 0) != (variant == bech32.Version0) {
		return invalid(Bitcoin)
	}
	switch hrp {
	case "bc":
		return nil
	case "tb", "bcrt":
		return ErrTestnetAddress
	}
	return invalid(Bitcoin)
}

// decodeBase58Check decodes s, checks its four-byte double-SHA-256 checksum, and insists that s
// is the one canonical encoding of what it decodes to.
func decodeBase58Check(s string) (version byte, payload []byte, ok bool) {
	payload, version, err := base58.CheckDecode(s)
	if err != nil || base58.CheckEncode(payload, version) != s {
		return 0, nil, false
	}
	return version, payload, true
}

// Ethereum

func checkEthereum(s string) error {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok || len(digits) != 40 {
		return invalid(Ethereum)
	}
	if _, err := hex.DecodeString(digits); err != nil {
		return invalid(Ethereum)
	}
	lower, upper := strings.ToLower(digits), strings.ToUpper(digits)
	if digits == lower || digits == upper {
		return nil // no checksum to check
	}
	if digits != eip55(lower) {
		return ErrChecksumCase
	}
	return nil
}

// eip55 returns the checksummed form of 40 lower-case hexadecimal digits (EIP-55): a letter is
// upper case when the matching hexadecimal digit of Keccak-256(the lower-case digits) is 8 or more.
func eip55(lower string) string {
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(lower))
	sum := hex.EncodeToString(h.Sum(nil))
	out := []byte(lower)
	for i, c := range out {
		if c >= 'a' && c <= 'f' && sum[i] >= '8' {
			out[i] = c - 'a' + 'A'
		}
	}
	return string(out)
}

// TRON

const versionTron = 0x41

func checkTron(s string) error {
	if len(s) != 34 || s[0] != 'T' {
		return invalid(Tron)
	}
	version, payload, ok := decodeBase58Check(s)
	if !ok || version != versionTron || len(payload) != 20 {
		return invalid(Tron)
	}
	return nil
}
