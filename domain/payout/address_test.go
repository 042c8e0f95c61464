package payout_test

import (
	"errors"
	"strings"
	"testing"

	"clearvest/domain/domainerr"
	"clearvest/domain/payout"
)

// valid are real addresses: the Bitcoin ones are test vectors of BIP-173 and BIP-350 or
// well-known mainnet addresses, the Ethereum ones the examples of EIP-55, the TRON ones the
// USDT (TRC-20) token contract and other mainnet accounts.
var valid = []struct {
	network, address, why string
}{
	{"BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "P2PKH, the genesis block's address"},
	{"BTC", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "P2PKH"},
	{"BTC", "1MirQ9bwyQcGVJPwKUgapu5ouK2E2Ey4gX", "P2PKH"},
	{"BTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "P2SH"},
	{"BTC", "3QJmV3qfvL9SuYo34YihAf3sRCW3qSinyC", "P2SH"},
	{"BTC", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "BIP-173/350: P2WPKH in upper case"},
	{"BTC", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "P2WPKH in lower case"},
	{"BTC", "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", "P2WSH, 32-byte program"},
	{"BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "BIP-350: taproot (v1, 32 bytes)"},
	{"BTC", "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "BIP-350: v1, 40 bytes"},
	{"BTC", "BC1SW50QGDZ25J", "BIP-350: v16, 2 bytes"},
	{"BTC", "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "BIP-350: v2, 16 bytes"},
	{"ERC20", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "EIP-55 mixed case"},
	{"ERC20", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "EIP-55 mixed case"},
	{"ERC20", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "EIP-55 mixed case"},
	{"ERC20", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", "EIP-55 mixed case"},
	{"ERC20", "0x52908400098527886E0F7030069857D2E4169EE7", "EIP-55: all capitals"},
	{"ERC20", "0x8617E340B3D01FA5F11F306F4090FD50E238070D", "EIP-55: all capitals"},
	{"ERC20", "0xde709f2102306220921060314715629080e2fb77", "EIP-55: all lower case"},
	{"ERC20", "0x27b1fdb04752bbc536007a920d24acb045561c26", "EIP-55: all lower case"},
	{"ERC20", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "a checksummed address in lower case"},
	{"ERC20", "0xdAC17F958D2ee523a2206206994597C13D831ec7", "the USDT (ERC-20) contract"},
	{"TRC20", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "the USDT (TRC-20) contract"},
	{"TRC20", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", "a mainnet account"},
}

func TestValidateAddressAcceptsKnownAddresses(t *testing.T) {
	t.Parallel()
	for _, tt := range valid {
		if err := payout.ValidateAddress(tt.network, tt.address); err != nil {
			t.Errorf("%s %s (%s): %v", tt.network, tt.address, tt.why, err)
		}
	}
}

func TestValidateAddressTrimsSurroundingWhitespace(t *testing.T) {
	t.Parallel()
	const a = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
	for _, in := range []string{" " + a, a + "\n", "\t" + a + " \r\n", "\u00a0" + a + "\u2003"} {
		got, err := payout.NormalizeAddress("BTC", in)
		if err != nil || got != a {
			t.Errorf("NormalizeAddress(%q) = %q, %v; want %q", in, got, err, a)
		}
	}
	// The case of an Ethereum address is its checksum, so it is kept.
	const e = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	if got, err := payout.NormalizeAddress("ERC20", " "+e+" "); err != nil || got != e {
		t.Errorf("NormalizeAddress(ERC20) = %q, %v", got, err)
	}
}

func TestValidateAddressRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, network, address string
		want                   error  // a sentinel the error must match
		message                string // the exact message shown to the user
	}{
		// Anything
		{"empty", "BTC", "", payout.ErrEmptyAddress, "Please enter a wallet address"},
		{"only spaces", "TRC20", " \t\n", payout.ErrEmptyAddress, "Please enter a wallet address"},
		{"space inside", "BTC", "1A1zP1eP5QGefi2DMP TfTL5SLmv7DivfNa", payout.ErrHiddenCharacters, payout.ErrHiddenCharacters.Error()},
		{"line break inside", "ERC20", "0x5aAeb6053F3E94C9b9A09f3366\n9435E7Ef1BeAed", payout.ErrHiddenCharacters, payout.ErrHiddenCharacters.Error()},
		{"NUL inside", "TRC20", "TR7NHqjeKQxGTCi8q8ZY\x004pL8otSzgjLj6t", payout.ErrHiddenCharacters, payout.ErrHiddenCharacters.Error()},
		{"zero-width space", "BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa\u200b", payout.ErrHiddenCharacters, payout.ErrHiddenCharacters.Error()},
		{"byte order mark", "BTC", "\ufeff1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", payout.ErrHiddenCharacters, payout.ErrHiddenCharacters.Error()},
		{"Cyrillic look-alike", "TRC20", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\u0422", payout.ErrHiddenCharacters, payout.ErrHiddenCharacters.Error()},
		{"far too long", "BTC", "bc1q" + strings.Repeat("q", 200), payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"unknown network", "SOL", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", payout.ErrUnknownNetwork, payout.ErrUnknownNetwork.Error()},
		{"network in lower case", "btc", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", payout.ErrUnknownNetwork, payout.ErrUnknownNetwork.Error()},

		// Bitcoin, base58check
		{"P2PKH with one character changed", "BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"P2SH with two characters swapped", "BTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNyL", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"P2PKH one character short", "BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfN", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"P2PKH with a character outside base58", "BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7Div0Na", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"P2PKH with a leading 1 too many", "BTC", "11A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"testnet P2PKH", "BTC", "mrX9vMRYLfVy1BnZbc5gZjuyaqH3ZW2ZHz", payout.ErrTestnetAddress, payout.ErrTestnetAddress.Error()},
		{"testnet P2SH", "BTC", "2NBFNJTktNa7GZusGbDbGKRZTxdK9VVez3n", payout.ErrTestnetAddress, payout.ErrTestnetAddress.Error()},
		{"a TRON address on Bitcoin", "BTC", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"an Ethereum address on Bitcoin", "BTC", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},

		// Bitcoin, segwit (the invalid vectors of BIP-173 and BIP-350, and near misses)
		{"P2WPKH with one character changed", "BTC", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"P2WPKH in mixed case", "BTC", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kV8F3T4", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"testnet P2WSH", "BTC", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", payout.ErrTestnetAddress, payout.ErrTestnetAddress.Error()},
		{"testnet taproot", "BTC", "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c", payout.ErrTestnetAddress, payout.ErrTestnetAddress.Error()},
		{"regtest P2WPKH", "BTC", "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw", payout.ErrTestnetAddress, payout.ErrTestnetAddress.Error()},
		{"unknown prefix tc1", "BTC", "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"v1 with a bech32 checksum", "BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"v1 testnet with a bech32 checksum", "BTC", "tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"v16 with a bech32 checksum, upper case", "BTC", "BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"v0 with a bech32m checksum", "BTC", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"v0 testnet with a bech32m checksum", "BTC", "tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"invalid character in the checksum", "BTC", "bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"witness version 17", "BTC", "BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"1-byte program", "BTC", "bc1pw5dgrnzv", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"41-byte program", "BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"v0 with a 16-byte program", "BTC", "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"testnet in mixed case", "BTC", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"more than 4 bits of zero padding", "BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"non-zero padding", "BTC", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"empty data section", "BTC", "bc1gmk9yu", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},
		{"separator only", "BTC", "bc1", payout.ErrInvalidAddress, "Please enter a valid Bitcoin address"},

		// Ethereum
		{"EIP-55 with one capital lowered", "ERC20", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", payout.ErrChecksumCase, payout.ErrChecksumCase.Error()},
		{"EIP-55 with one letter raised", "ERC20", "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", payout.ErrChecksumCase, payout.ErrChecksumCase.Error()},
		{"EIP-55 with one digit changed", "ERC20", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe0", payout.ErrChecksumCase, payout.ErrChecksumCase.Error()},
		{"one hex digit short", "ERC20", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},
		{"one hex digit too many", "ERC20", "0xde709f2102306220921060314715629080e2fb770", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},
		{"no 0x", "ERC20", "de709f2102306220921060314715629080e2fb77", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},
		{"upper-case 0X", "ERC20", "0Xde709f2102306220921060314715629080e2fb77", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},
		{"a character outside hex", "ERC20", "0xde709f2102306220921060314715629080e2fb7g", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},
		{"a Bitcoin address on Ethereum", "ERC20", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},
		{"an ENS name", "ERC20", "vitalik.eth", payout.ErrInvalidAddress, "Please enter a valid Ethereum address"},

		// TRON
		{"TRON with one character changed", "TRC20", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", payout.ErrInvalidAddress, "Please enter a valid TRON address"},
		{"TRON one character short", "TRC20", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6", payout.ErrInvalidAddress, "Please enter a valid TRON address"},
		{"TRON in lower case", "TRC20", "tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t", payout.ErrInvalidAddress, "Please enter a valid TRON address"},
		{"TRON in hex form", "TRC20", "41a614f803b6fd780986a42c78ec9c7f77e6ded13c", payout.ErrInvalidAddress, "Please enter a valid TRON address"},
		{"a Bitcoin P2PKH on TRON", "TRC20", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", payout.ErrInvalidAddress, "Please enter a valid TRON address"},
		{"an Ethereum address on TRON", "TRC20", "0xdAC17F958D2ee523a2206206994597C13D831ec7", payout.ErrInvalidAddress, "Please enter a valid TRON address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := payout.ValidateAddress(tt.network, tt.address)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ValidateAddress(%s, %q) = %v, want %v", tt.network, tt.address, err, tt.want)
			}
			if err.Error() != tt.message {
				t.Errorf("message = %q, want %q", err.Error(), tt.message)
			}
			var de *domainerr.Error
			if !errors.As(err, &de) || de.Kind() != domainerr.Invalid {
				t.Fatalf("error %v is not a domain validation error", err)
			}
			wantField := payout.AddressField
			if errors.Is(err, payout.ErrUnknownNetwork) {
				wantField = "network"
			}
			if de.Field != wantField {
				t.Errorf("field = %q, want %q", de.Field, wantField)
			}
		})
	}
}

func TestEveryAddressErrorIsAnInvalidAddress(t *testing.T) {
	t.Parallel()
	for _, err := range []error{payout.ErrEmptyAddress, payout.ErrHiddenCharacters, payout.ErrTestnetAddress, payout.ErrChecksumCase} {
		if !errors.Is(err, payout.ErrInvalidAddress) {
			t.Errorf("%v does not match ErrInvalidAddress", err)
		}
	}
}

// FuzzValidateAddress feeds anything to every network: it never panics, and whatever it accepts
// is the input trimmed, printable ASCII, and accepted again as it was normalised.
func FuzzValidateAddress(f *testing.F) {
	for _, v := range valid {
		f.Add(v.network, v.address)
		f.Add(v.network, " "+strings.ToUpper(v.address)+"\n")
	}
	for _, s := range []string{"", "bc1", "BC1", "tb1", "bcrt1", "1", "3", "T", "0x", "0x" + strings.Repeat("G", 40), "\xff\xfe", "bc1\x00"} {
		for _, n := range payout.Networks() {
			f.Add(string(n), s)
		}
	}
	f.Fuzz(func(t *testing.T, network, address string) {
		got, err := payout.NormalizeAddress(network, address)
		if (err == nil) != (payout.ValidateAddress(network, address) == nil) {
			t.Fatalf("NormalizeAddress and ValidateAddress disagree on %s %q", network, address)
		}
		if err != nil {
			if _, _, ok := domainerr.KindOf(err); !ok || !(errors.Is(err, payout.ErrInvalidAddress) || errors.Is(err, payout.ErrUnknownNetwork)) {
				t.Fatalf("ValidateAddress(%s, %q) = %v, not an address error", network, address, err)
			}
			return
		}
		if got != strings.TrimSpace(address) || got == "" {
			t.Fatalf("NormalizeAddress(%s, %q) = %q", network, address, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x21 || got[i] > 0x7e {
				t.Fatalf("accepted %q, with byte %#x", got, got[i])
			}
		}
		if again, err := payout.NormalizeAddress(network, got); err != nil || again != got {
			t.Fatalf("the normalised %q is not accepted as it is: %v", got, err)
		}
	})
}

// FuzzAlteredChecksum changes one character of a valid checksummed address into another
// character of the same encoding and case, as a typo would: the result is never accepted.
// (Lower- and upper-case Ethereum addresses carry no checksum, so only the mixed-case EIP-55
// ones are used; for them a typo is a changed digit or a letter in the wrong case.)
func FuzzAlteredChecksum(f *testing.F) {
	for i := range valid {
		f.Add(uint8(i), uint8(0), uint8(1))
		f.Add(uint8(i), uint8(13), uint8(7))
		f.Add(uint8(i), uint8(255), uint8(200))
	}
	f.Fuzz(func(t *testing.T, which, pos, to uint8) {
		v := valid[int(which)%len(valid)]
		alphabet := alphabetOf(v.network, v.address)
		if alphabet == "" {
			return // no checksum to alter
		}
		s := []byte(v.address)
		i := firstChecked(v.network, v.address) + int(pos)%(len(s)-firstChecked(v.network, v.address))
		replacement := alphabet[int(to)%len(alphabet)]
		if replacement == s[i] {
			return
		}
		s[i] = replacement
		altered := string(s)
		if v.network == "ERC20" {
			digits := altered[2:]
			if digits == strings.ToLower(digits) || digits == strings.ToUpper(digits) {
				return // the typo removed the checksum itself; no address can prove that
			}
		}
		if err := payout.ValidateAddress(v.network, altered); err == nil {
			t.Fatalf("%s %q with position %d changed to %q is accepted: %q", v.network, v.address, i, replacement, altered)
		}
	})
}

// alphabetOf is the characters a typo in address can produce without leaving its encoding.
func alphabetOf(network, address string) string {
	const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	const bech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	switch {
	case network == "ERC20":
		digits := address[2:]
		if digits == strings.ToLower(digits) || digits == strings.ToUpper(digits) {
			return ""
		}
		return "0123456789abcdefABCDEF"
	case strings.HasPrefix(strings.ToLower(address), "bc1"):
		if address == strings.ToUpper(address) {
			return strings.ToUpper(bech32)
		}
		return bech32
	default:
		return base58
	}
}

// firstChecked is the index of the first character a typo is checked in: after "0x" and after
// the bech32 human-readable part and separator (a typo there is covered by the checksum too,
// but it can turn the address into another network's).
func firstChecked(network, address string) int {
	switch {
	case network == "ERC20":
		return 2
	case strings.HasPrefix(strings.ToLower(address), "bc1"):
		return 3
	}
	return 0
}
