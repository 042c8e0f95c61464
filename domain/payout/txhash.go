package payout

import (
	"strings"
)

// TxHashField is the input a transaction hash error is about.
const TxHashField = "txHash"

// Errors returned by CanonicalTxHash. Each matches ErrInvalidTxHash under errors.Is and names
// the field "txHash".
var (
	ErrInvalidTxHash = fieldError(TxHashField, "Please enter a valid transaction hash")
	// ErrTxHashHidden: a space, line break or invisible character (a zero-width space, a byte
	// order mark, a bidi override) inside the hash, usually from copying it out of a message.
	ErrTxHashHidden = ErrInvalidTxHash.WithMessage("The transaction hash contains invisible or control characters; please copy it again")
)

// CanonicalTxHash returns the one form a transaction hash of the network is stored and compared
// in, or a field error for "txHash":
//
//   - BTC and TRC20: 64 lower-case hexadecimal digits, no prefix (how Bitcoin and TRON explorers
//     write a transaction id).
//   - ERC20: "0x" and 64 lower-case hexadecimal digits.
//
// On input, surrounding whitespace (a pasted line break) is forgiven, and so are an optional
// "0x" prefix and any letter case, because wallets and explorers write the same hash each of
// these ways: all of them name one transfer and must be credited once. Anything else is refused,
// in particular invisible characters inside or around the hash, which would otherwise make one
// hash look like a new one.
func CanonicalTxHash(network Network, s string) (string, error) {
	if !network.Valid() {
		return "", ErrUnknownNetwork
	}
	s = strings.TrimSpace(s)
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return "", ErrTxHashHidden
		}
	}
	hex := s
	if len(hex) >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X') {
		hex = hex[2:]
	}
	if len(hex) != 64 {
		return "", txHashInvalid(network)
	}
	b := []byte(hex)
	for i, c := range b {
		switch {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			b[i] = c + ('a' - 'A')
		default:
			return "", txHashInvalid(network)
		}
	}
	if network == Ethereum {
		return "0x" + string(b), nil
	}
	return string(b), nil
}

func txHashInvalid(n Network) error {
	if n == Ethereum {
		return ErrInvalidTxHash.WithMessage("Please enter a valid " + n.Name() + " transaction hash: 0x and 64 hexadecimal characters")
	}
	return ErrInvalidTxHash.WithMessage("Please enter a valid " + n.Name() + " transaction hash: 64 hexadecimal characters")
}
