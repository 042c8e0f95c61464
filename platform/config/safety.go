package config

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// Safe by default (docs/security.md): development serves tools that must never reach a network
// (a public mailbox of password-reset links and login codes, a test clock that makes
// investments mature early, demo accounts, example deposit addresses whose private keys are
// public). They run only when development is chosen on purpose and the server listens on this
// machine alone; production refuses the development stand-ins instead of silently using them.

// ExampleDepositAddresses are what development offers when CLEARVEST_DEPOSIT_ADDRESSES is unset,
// so the deposit pages work out of the box. They are published examples (the BIP-173 example
// address, EIP-55 test vectors, a well-known TRON address): their private keys are public or
// belong to someone else, so production refuses every one of them.
const ExampleDepositAddresses = "BTC/BTC=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4," +
	"ETH/ERC20=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed,USDT/ERC20=0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359," +
	"USDT/TRC20=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"

// loopbackExample is the address the messages suggest for development.
const loopbackExample = "127.0.0.1:8080"

// DevelopmentChosen reports whether CLEARVEST_ENV=development was set explicitly. Left unset,
// the CLI tools behave as in development (they serve nothing), but serve refuses to start and
// nothing seeds demo data.
func (c Config) DevelopmentChosen() bool { return c.Env == Development && c.EnvChosen }

// DevTools reports whether the development tools (the mail viewer, the test clock, demo data,
// example deposit addresses) may run: development chosen explicitly, listening on a loopback
// address only.
func (c Config) DevTools() bool { return c.DevelopmentChosen() && LoopbackAddr(c.Addr) }

// CheckServe says why `serve` must not start with this configuration, naming what to set; nil
// when it may. Production's own requirements are checked by Load.
func (c Config) CheckServe() error {
	if c.Production() {
		return nil
	}
	if !c.EnvChosen {
		return fmt.Errorf("%s is not set: set %s=%s (with %s, %s and %s) for a server people use, or %s=%s with %s on a loopback address (e.g. %s=%s) to try Clearvest on this machine",
			EnvEnv, EnvEnv, Production, EnvSecretKey, EnvMailURL, EnvDepositAddresses, EnvEnv, Development, EnvAddr, EnvAddr, loopbackExample)
	}
	if !LoopbackAddr(c.Addr) {
		return fmt.Errorf("%s=%s serves development tools (a mailbox of sign-in codes and password-reset links, a test clock, demo accounts) and listens only on a loopback address, but %s is %q: set %s=%s, or %s=%s for a server others can reach",
			EnvEnv, Development, EnvAddr, c.Addr, EnvAddr, loopbackExample, EnvEnv, Production)
	}
	return nil
}

// LoopbackAddr reports whether a listen address (host:port) binds to this machine only:
// 127.0.0.0/8, ::1 or localhost. An empty host (":8080") listens on every interface, and any
// other name could resolve anywhere, so neither counts.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// checkProduction refuses, in production, the stand-ins development uses: a secret key that is
// the data directory's generated development key, and any of the example deposit addresses.
// (A missing mail URL or secret key is refused where they are read.)
func checkProduction(c Config) error {
	if !c.Production() {
		return nil
	}
	path := filepath.Join(c.DataDir, SecretKeyFile)
	if b, err := os.ReadFile(path); err == nil {
		if dev, err := decodeSecretKey(strings.TrimSpace(string(b)), path); err == nil && bytes.Equal(dev, c.SecretKey) {
			return fmt.Errorf("%s is the development key generated into %s; production needs a key of its own: set %s to the output of `openssl rand -base64 %d` (and delete that file once nothing uses it)",
				EnvSecretKey, path, EnvSecretKey, SecretKeySize)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("checking that %s is not the development key: %w", EnvSecretKey, err)
	}
	examples, err := ParseDepositAddresses(ExampleDepositAddresses)
	if err != nil {
		return err // a broken constant; TestExampleDepositAddresses keeps it parseable
	}
	for _, d := range c.DepositAddresses {
		for _, e := range examples {
			if strings.EqualFold(d.Address, e.Address) {
				return fmt.Errorf("%s: %s/%s=%s is a published example address whose key is not yours; set %s to addresses of your own wallets",
					EnvDepositAddresses, d.Asset, d.Network, d.Address, EnvDepositAddresses)
			}
		}
	}
	return nil
}
