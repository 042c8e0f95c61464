// Package config reads Clearvest's configuration from the environment.
//
// Every setting has a development default so that `clearvest serve` works with no
// configuration at all; production refuses to start without the settings that protect
// users (the secret key, a real mail transport) instead of silently inventing them.
package config

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"clearvest/domain/asset"
	"clearvest/domain/fees"
	"clearvest/domain/money"
	"clearvest/domain/payout"
)

// Environment variable names, exported so that error messages, docs and tests agree.
const (
	EnvDatabaseURL      = "DATABASE_URL"
	EnvAddr             = "CLEARVEST_ADDR"
	EnvDataDir          = "CLEARVEST_DATA_DIR"
	EnvPublicURL        = "CLEARVEST_PUBLIC_URL"
	EnvEnv              = "CLEARVEST_ENV"
	EnvMailURL          = "CLEARVEST_MAIL_URL"
	EnvSecretKey        = "CLEARVEST_SECRET_KEY"
	EnvSecretKeyPrev    = "CLEARVEST_SECRET_KEY_PREVIOUS"
	EnvGoogleClientID   = "GOOGLE_CLIENT_ID"
	EnvGoogleSecret     = "GOOGLE_CLIENT_SECRET"
	EnvGoogleIssuer     = "GOOGLE_ISSUER"
	EnvDepositAddresses = "CLEARVEST_DEPOSIT_ADDRESSES"
	EnvBlobURL          = "CLEARVEST_BLOB_URL"
	EnvTrustedProxies   = "CLEARVEST_TRUSTED_PROXIES"
	EnvMetricsAddr      = "CLEARVEST_METRICS_ADDR"
	EnvWithdrawalFee    = "CLEARVEST_WITHDRAWAL_FEE"
	EnvReferralBonus    = "CLEARVEST_REFERRAL_BONUS"
	EnvMinDeposit       = "CLEARVEST_MIN_DEPOSIT"
	EnvMarketCryptoURL  = "CLEARVEST_MARKET_CRYPTO_URL"
	EnvMarketFXURL      = "CLEARVEST_MARKET_FX_URL"
	EnvMarketRefresh    = "CLEARVEST_MARKET_REFRESH"
	EnvContentDir       = "CLEARVEST_CONTENT_DIR"
)

// Deployment environments.
const (
	Development = "development"
	Production  = "production"
)

const (
	defaultAddr      = ":8080"
	defaultDataDir   = "./data"
	defaultPublicURL = "http://localhost:8080"

	// DefaultWithdrawalFee is the published withdrawal fee when CLEARVEST_WITHDRAWAL_FEE is
	// unset: 1% + $1.00, at most $25.00, on withdrawals of $10.00 or more. The flat part
	// covers the network fee of an on-chain payout; the cap keeps large withdrawals modest.
	DefaultWithdrawalFee = "percent=1,flat=1.00,min=10.00,cap=25.00"

	// DefaultReferralBonus is what a referrer earns, in USD, when someone they referred has their
	// first deposit confirmed, when CLEARVEST_REFERRAL_BONUS is unset.
	DefaultReferralBonus = "5.00"

	// DefaultMinDeposit is the smallest deposit, in USD, when CLEARVEST_MIN_DEPOSIT is unset: below
	// it the network fee of sending crypto eats too much of the money for a beginner.
	DefaultMinDeposit = "10.00"

	// SecretKeySize is the length of CLEARVEST_SECRET_KEY once decoded.
	SecretKeySize = 32
	// SecretKeyFile is where the development secret is kept, relative to the data dir.
	SecretKeyFile = "secret.key"
)

// Config is the whole runtime configuration. It is a plain value: load it once in main and
// pass the parts each component needs.
type Config struct {
	DatabaseURL string // empty: the embedded PostgreSQL cluster under DataDir
	// Reads are the read replicas (CLEARVEST_READ_DATABASE_URL, CLEARVEST_READ_MAX_LAG).
	Reads Reads
	Addr  string
	// MetricsAddr is where Prometheus metrics are served, apart from the public listener;
	// empty: they are not served.
	MetricsAddr    string
	DataDir        string // always absolute
	PublicURL      string
	Env            string
	MailURL        string
	SecretKey      []byte
	GoogleClientID string
	// GoogleClientSecret is set for a confidential OAuth client; PKCE protects the code either way.
	GoogleClientSecret string
	// GoogleIssuer is overridable so development and tests can use a local OpenID provider.
	GoogleIssuer string
	// DepositAddresses are where investors send each asset on each network
	// (CLEARVEST_DEPOSIT_ADDRESSES), checked at start-up so that a typo never reaches a screen
	// that asks people to send money to it.
	DepositAddresses []DepositAddress
	// BlobS3 is the bucket that holds files (profile photos) when CLEARVEST_BLOB_URL is set;
	// nil means the local disk under DataDir.
	BlobS3 *S3
	// TrustedProxies are the reverse proxies whose forwarding headers name the client
	// (CLEARVEST_TRUSTED_PROXIES); empty means every request's peer is the client.
	TrustedProxies []netip.Prefix
	// PreviousSecretKeys are earlier values of SecretKey, still accepted while a rotation is
	// under way: what was signed, hashed or sealed with them still works, while everything new
	// uses SecretKey (docs/identity.md, "Rotating the secret key").
	PreviousSecretKeys [][]byte
	// WithdrawalFee is the published withdrawal fee schedule (CLEARVEST_WITHDRAWAL_FEE, or
	// DefaultWithdrawalFee), validated at start-up.
	WithdrawalFee fees.Schedule
	// MinDeposit is the smallest deposit a request may state (CLEARVEST_MIN_DEPOSIT, or
	// DefaultMinDeposit).
	MinDeposit money.Money
	// ReferralBonus is what a referrer earns when a user they referred has their first deposit
	// confirmed (CLEARVEST_REFERRAL_BONUS, or DefaultReferralBonus), validated at start-up.
	ReferralBonus money.Money
	// Market is where the market rates page's prices come from and how often they are fetched.
	Market Market
	// ContentDir is the operator's site content (CLEARVEST_CONTENT_DIR); "" serves the content
	// shipped in the binary.
	ContentDir string
	// Community is the public site's social proof: when counts show and the member levels.
	Community Community
	// Approvals are the four-eyes thresholds and the ceiling on amounts.
	Approvals Approvals
	// Limits are the money limits: a referral's minimum deposit and the open deposit quota.
	Limits Limits
	// Chain is the deposit watchers' nodes and settings (CLEARVEST_CHAIN_*); zero watches nothing.
	Chain Chain
	// EnvChosen is set when CLEARVEST_ENV was given rather than left unset: development tools
	// run only when development was chosen on purpose (safety.go).
	EnvChosen bool
}

// S3 locates a bucket of an S3-compatible object store, from
// CLEARVEST_BLOB_URL=s3://ACCESS_KEY:SECRET_KEY@host[:port]/bucket?region=us-east-1&tls=true.
type S3 struct {
	Endpoint  string // scheme and host: "https://s3.amazonaws.com", "http://minio:9000"
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
}

// Production reports whether the development conveniences must stay off.
func (c Config) Production() bool { return c.Env == Production }

// Embedded reports whether the app runs its own PostgreSQL cluster.
func (c Config) Embedded() bool { return c.DatabaseURL == "" }

// LogValue keeps secrets out of logs: the key is never printed and URLs lose their passwords.
func (c Config) LogValue() slog.Value {
	db := "embedded"
	if c.DatabaseURL != "" {
		db = redactURL(c.DatabaseURL)
	}
	return slog.GroupValue(
		slog.String("env", c.Env),
		slog.String("addr", c.Addr),
		slog.String("metrics_addr", c.MetricsAddr),
		slog.String("data_dir", c.DataDir),
		slog.String("public_url", c.PublicURL),
		slog.String("database", db),
		slog.Any("read_replicas", redactURLs(c.Reads.URLs)),
		slog.String("mail", redactURL(c.MailURL)),
		slog.Int("previous_secret_keys", len(c.PreviousSecretKeys)),
		slog.Bool("google_login", c.GoogleClientID != ""),
		slog.String("blobs", c.blobLogValue()),
		slog.Any("trusted_proxies", c.TrustedProxies),
		slog.String("withdrawal_fee", c.WithdrawalFee.String()),
		slog.String("referral_bonus", c.ReferralBonus.String()),
		slog.String("market_refresh", c.Market.Refresh.String()),
		slog.String("content_dir", c.ContentDir),
	)
}

func (c Config) blobLogValue() string {
	if c.BlobS3 == nil {
		return "disk"
	}
	return c.BlobS3.Endpoint + "/" + c.BlobS3.Bucket
}

// DataDir returns the data directory the environment selects, as an absolute path, without
// loading (and so without validating or generating) anything else. Tools that only manage
// the embedded database use it so they keep working when, say, production secrets are absent.
func DataDir(getenv func(string) string) (string, error) {
	dir := strings.TrimSpace(getenv(EnvDataDir))
	if dir == "" {
		dir = defaultDataDir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", EnvDataDir, err)
	}
	return abs, nil
}

// Load reads the configuration through getenv (os.Getenv in main, a map in tests).
// In development it may create the data directory and the secret key file inside it.
func Load(getenv func(string) string) (Config, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var c Config

	c.Env = get(EnvEnv)
	c.EnvChosen = c.Env != ""
	switch c.Env {
	case "":
		c.Env = Development
	case Development, Production:
	default:
		return Config{}, fmt.Errorf("%s: unknown environment %q; use %q or %q", EnvEnv, c.Env, Development, Production)
	}

	var err error
	if c.DataDir, err = DataDir(getenv); err != nil {
		return Config{}, err
	}

	c.DatabaseURL = get(EnvDatabaseURL)
	if c.DatabaseURL != "" {
		if err := checkDatabaseURL(c.DatabaseURL); err != nil {
			return Config{}, err
		}
	}

	if c.Reads, err = ParseReads(get, c.DatabaseURL); err != nil {
		return Config{}, err
	}

	c.Addr = get(EnvAddr)
	if c.Addr == "" {
		c.Addr = defaultAddr
	}
	if err := checkListenAddr(EnvAddr, c.Addr, defaultAddr); err != nil {
		return Config{}, err
	}
	if c.MetricsAddr = get(EnvMetricsAddr); c.MetricsAddr != "" {
		if err := checkListenAddr(EnvMetricsAddr, c.MetricsAddr, "127.0.0.1:9090"); err != nil {
			return Config{}, err
		}
		if _, port, _ := net.SplitHostPort(c.MetricsAddr); c.MetricsAddr == c.Addr && port != "0" {
			return Config{}, fmt.Errorf("%s: %q is %s too; metrics need a listener of their own, away from the public one", EnvMetricsAddr, c.MetricsAddr, EnvAddr)
		}
	}

	c.PublicURL = strings.TrimRight(get(EnvPublicURL), "/")
	if c.PublicURL == "" {
		c.PublicURL = defaultPublicURL
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Config{}, fmt.Errorf("%s: %q is not an absolute http(s) URL; it is the address users reach, e.g. https://clearvest.example.com", EnvPublicURL, c.PublicURL)
	}

	c.MailURL = get(EnvMailURL)
	if c.MailURL == "" {
		if c.Production() {
			return Config{}, fmt.Errorf("%s is required in production: smtp://user:pass@host:port, or file:///dir to write .eml files", EnvMailURL)
		}
		c.MailURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(c.DataDir, "mail"))}).String()
	}
	if err := checkMailURL(c.MailURL); err != nil {
		return Config{}, err
	}

	if c.SecretKey, err = secretKey(get(EnvSecretKey), c); err != nil {
		return Config{}, err
	}
	if c.PreviousSecretKeys, err = previousSecretKeys(get(EnvSecretKeyPrev), c.SecretKey); err != nil {
		return Config{}, err
	}

	c.GoogleClientID = get(EnvGoogleClientID)
	c.GoogleClientSecret = get(EnvGoogleSecret)
	c.GoogleIssuer = get(EnvGoogleIssuer)
	if c.GoogleIssuer == "" {
		c.GoogleIssuer = "https://accounts.google.com"
	}
	if c.DepositAddresses, err = ParseDepositAddresses(get(EnvDepositAddresses)); err != nil {
		return Config{}, err
	}

	if s := get(EnvBlobURL); s != "" {
		if c.BlobS3, err = parseBlobURL(s); err != nil {
			return Config{}, err
		}
	}
	if c.TrustedProxies, err = ParseTrustedProxies(get(EnvTrustedProxies)); err != nil {
		return Config{}, err
	}
	if c.WithdrawalFee, err = ParseWithdrawalFee(get(EnvWithdrawalFee)); err != nil {
		return Config{}, err
	}
	if c.ReferralBonus, err = ParseReferralBonus(get(EnvReferralBonus)); err != nil {
		return Config{}, err
	}
	if c.MinDeposit, err = ParseMinDeposit(get(EnvMinDeposit)); err != nil {
		return Config{}, err
	}
	if c.Market, err = ParseMarket(get); err != nil {
		return Config{}, err
	}
	c.ContentDir = get(EnvContentDir)
	if c.Community, err = LoadCommunity(getenv); err != nil {
		return Config{}, err
	}
	if c.Approvals, err = LoadApprovals(getenv); err != nil {
		return Config{}, err
	}
	if c.Limits, err = LoadLimits(getenv); err != nil {
		return Config{}, err
	}
	if c.Chain, err = LoadChain(getenv); err != nil {
		return Config{}, err
	}
	if err := checkProduction(c); err != nil {
		return Config{}, err
	}
	return c, nil
}

// ParseReferralBonus reads CLEARVEST_REFERRAL_BONUS: a positive amount of US dollars with at
// most two decimals ("5", "5.00"). Empty means DefaultReferralBonus.
func ParseReferralBonus(s string) (money.Money, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultReferralBonus
	}
	m, err := money.Parse(s)
	if err == nil {
		_, err = money.Positive(m)
	}
	if err != nil {
		return money.Money{}, fmt.Errorf("%s: %q is not a positive amount of US dollars with at most two decimals, e.g. 5.00", EnvReferralBonus, s)
	}
	return m, nil
}

// ParseMinDeposit reads CLEARVEST_MIN_DEPOSIT: a positive amount of US dollars with at most two
// decimals; empty means DefaultMinDeposit.
func ParseMinDeposit(s string) (money.Money, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultMinDeposit
	}
	m, err := money.Parse(s)
	if err == nil {
		_, err = money.Positive(m)
	}
	if err != nil {
		return money.Money{}, fmt.Errorf("%s: %q is not a positive amount of US dollars with at most two decimals, e.g. 10.00", EnvMinDeposit, s)
	}
	return m, nil
}

// ParseWithdrawalFee reads CLEARVEST_WITHDRAWAL_FEE: comma-separated key=value terms, each at most
// once, in any order: percent (of the amount, e.g. 1.5), flat (dollars, e.g. 1.00), min (the
// smallest withdrawal) and cap (the most the fee can be). A term left out is zero; cap left out
// means no cap. Empty means DefaultWithdrawalFee. Amounts follow the money rules (at most two
// decimals, never rounded), and the schedule must pass fees.New, so a fee that could swallow a
// withdrawal fails at start-up rather than at a user's expense.
func ParseWithdrawalFee(s string) (fees.Schedule, error) {
	const form = "percent=1.5,flat=1.00,min=10.00,cap=50.00"
	if s == "" {
		s = DefaultWithdrawalFee
	}
	var t fees.Terms
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" || value == "" {
			return fees.Schedule{}, fmt.Errorf("%s: %q is not key=value; write the schedule like %s", EnvWithdrawalFee, strings.TrimSpace(item), form)
		}
		if seen[key] {
			return fees.Schedule{}, fmt.Errorf("%s: %s is given twice", EnvWithdrawalFee, key)
		}
		seen[key] = true
		var err error
		switch key {
		case "percent":
			t.Percent, err = fees.ParsePercent(value)
		case "flat":
			t.Flat, err = parseFeeAmount(value)
		case "min":
			t.Minimum, err = parseFeeAmount(value)
		case "cap":
			if t.Cap, err = parseFeeAmount(value); err == nil && !t.Cap.IsPositive() {
				return fees.Schedule{}, fmt.Errorf("%s: cap=%s would make every fee zero; leave cap out for no cap, or set percent=0,flat=0 for no fee", EnvWithdrawalFee, value)
			}
		default:
			return fees.Schedule{}, fmt.Errorf("%s: unknown term %q; use percent, flat, min and cap, e.g. %s", EnvWithdrawalFee, key, form)
		}
		if err != nil {
			return fees.Schedule{}, fmt.Errorf("%s: %s=%s: %w", EnvWithdrawalFee, key, value, err)
		}
	}
	schedule, err := fees.New(fees.Withdrawal, t)
	if err != nil {
		return fees.Schedule{}, fmt.Errorf("%s: %w", EnvWithdrawalFee, err)
	}
	return schedule, nil
}

// parseFeeAmount reads a dollar amount of a fee schedule: money's grammar, not negative.
func parseFeeAmount(s string) (money.Money, error) {
	m, err := money.Parse(s)
	if err != nil {
		return money.Money{}, err
	}
	return money.NonNegative(m)
}

// ParseTrustedProxies reads CLEARVEST_TRUSTED_PROXIES: CIDR prefixes and single addresses
// (taken as /32 or /128), separated by commas or spaces. A prefix with host bits set is refused
// rather than widened or narrowed, because either guess could trust a proxy nobody meant to.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if strings.Contains(item, "%") {
			return nil, fmt.Errorf("%s: %q has an IPv6 zone; list addresses without one", EnvTrustedProxies, item)
		}
		if !strings.Contains(item, "/") {
			addr, err := netip.ParseAddr(item)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is neither an IP address nor a CIDR prefix such as 10.0.0.0/8", EnvTrustedProxies, item)
			}
			addr = addr.Unmap()
			out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a CIDR prefix such as 10.0.0.0/8 or 2001:db8::/32", EnvTrustedProxies, item)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("%s: %q has bits set past the prefix length; write %s for the network or %s for the one address",
				EnvTrustedProxies, item, p.Masked(), netip.PrefixFrom(p.Addr(), p.Addr().BitLen()))
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p)
	}
	return out, nil
}

func checkListenAddr(name, addr, example string) error {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return fmt.Errorf("%s: %q is not a listen address; use host:port or :port, e.g. %q", name, addr, example)
	}
	return nil
}

func checkDatabaseURL(s string) error { return checkDatabaseURLOf(EnvDatabaseURL, s) }

// checkDatabaseURLOf checks a database URL given by source (a variable's name).
func checkDatabaseURLOf(source, s string) error {
	// Key=value connection strings are valid for pgx too; only URLs can be checked cheaply here.
	if !strings.Contains(s, "://") {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%s: not a valid URL (is a special character in the password not percent-encoded?)", source)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return fmt.Errorf("%s: scheme %q is not supported; use postgres://user:pass@host:5432/dbname", source, u.Scheme)
	}
	return nil
}

// parseBlobURL reads CLEARVEST_BLOB_URL. Unknown query parameters are refused so that a typo
// (regoin=...) fails at start-up instead of signing for the wrong region on the first upload.
// The value holds a secret key, so errors never echo it.
func parseBlobURL(s string) (*S3, error) {
	const form = "s3://ACCESS_KEY:SECRET_KEY@host[:port]/bucket?region=us-east-1&tls=true"
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid URL (is a '/' or other special character in the secret key not percent-encoded?); use %s", EnvBlobURL, form)
	}
	if u.Scheme != "s3" {
		return nil, fmt.Errorf("%s: scheme %q is not supported; use %s, or leave it unset for the local disk", EnvBlobURL, u.Scheme, form)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%s: %s has no host; use %s", EnvBlobURL, redactURL(s), form)
	}
	var c S3
	if u.User != nil {
		c.AccessKey = u.User.Username()
		c.SecretKey, _ = u.User.Password()
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return nil, fmt.Errorf("%s: %s needs an access key and a secret key; use %s", EnvBlobURL, redactURL(s), form)
	}
	c.Bucket = strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	if !validBucket(c.Bucket) {
		return nil, fmt.Errorf("%s: %q is not a bucket name (3-63 lower-case letters, digits, '.' and '-'; a path below the bucket is not supported); use %s", EnvBlobURL, c.Bucket, form)
	}

	q := u.Query()
	c.Region = "us-east-1"
	scheme := "https"
	for name, values := range q {
		v := values[len(values)-1]
		switch name {
		case "region":
			if v == "" {
				return nil, fmt.Errorf("%s: region is empty; omit it for us-east-1", EnvBlobURL)
			}
			c.Region = v
		case "tls":
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s: tls=%q is not true or false", EnvBlobURL, v)
			}
			if !on {
				scheme = "http"
			}
		default:
			return nil, fmt.Errorf("%s: unknown parameter %q; only region and tls are supported", EnvBlobURL, name)
		}
	}
	c.Endpoint = scheme + "://" + u.Host
	return &c, nil
}

func validBucket(name string) bool {
	if len(name) < 3 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !('a' <= ch && ch <= 'z' || '0' <= ch && ch <= '9' || ch == '.' || ch == '-') {
			return false
		}
	}
	return true
}

func checkMailURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		// The value may hold an SMTP password, so it is not echoed back.
		return fmt.Errorf("%s: not a valid URL (is a special character in the password not percent-encoded?)", EnvMailURL)
	}
	switch u.Scheme {
	case "smtp", "smtps":
		if u.Hostname() == "" {
			return fmt.Errorf("%s: %s has no host; use smtp://user:pass@host:port", EnvMailURL, redactURL(s))
		}
	case "file":
		if u.Path == "" || !strings.HasPrefix(u.Path, "/") {
			return fmt.Errorf("%s: %q needs an absolute directory, e.g. file:///var/lib/clearvest/mail", EnvMailURL, s)
		}
	default:
		return fmt.Errorf("%s: scheme %q is not supported; use smtp://, smtps:// or file://", EnvMailURL, u.Scheme)
	}
	return nil
}

func secretKey(encoded string, c Config) ([]byte, error) {
	if encoded != "" {
		return decodeSecretKey(encoded, EnvSecretKey)
	}
	if c.Production() {
		return nil, fmt.Errorf("%s is required in production: the standard base64 of %d random bytes, e.g. from `openssl rand -base64 %d`", EnvSecretKey, SecretKeySize, SecretKeySize)
	}
	return developmentSecretKey(c.DataDir)
}

// previousSecretKeys reads CLEARVEST_SECRET_KEY_PREVIOUS: keys in the form of the current one,
// separated by commas. Listing the current key, or a key twice, is refused: it is a sign that
// the rotation is not what the operator thinks it is.
func previousSecretKeys(list string, current []byte) ([][]byte, error) {
	if list == "" {
		return nil, nil
	}
	var out [][]byte
	for i, part := range strings.Split(list, ",") {
		source := fmt.Sprintf("%s (key %d)", EnvSecretKeyPrev, i+1)
		key, err := decodeSecretKey(strings.TrimSpace(part), source)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(key, current) {
			return nil, fmt.Errorf("%s: is the current key (%s); list only keys that were replaced", source, EnvSecretKey)
		}
		for _, k := range out {
			if bytes.Equal(k, key) {
				return nil, fmt.Errorf("%s: is listed twice", source)
			}
		}
		out = append(out, key)
	}
	return out, nil
}

func decodeSecretKey(encoded, source string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("%s: not standard base64 (%v); generate a key with `openssl rand -base64 %d`", source, err, SecretKeySize)
	}
	if len(key) != SecretKeySize {
		return nil, fmt.Errorf("%s: decodes to %d bytes, want exactly %d; generate a key with `openssl rand -base64 %d`", source, len(key), SecretKeySize, SecretKeySize)
	}
	return key, nil
}

// developmentSecretKey keeps one key per data directory, so sessions and signed links survive
// restarts, without asking a developer to invent one.
func developmentSecretKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, SecretKeyFile)
	if b, err := os.ReadFile(path); err == nil {
		return decodeSecretKey(strings.TrimSpace(string(b)), path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s unset, and reading the development key failed: %w", EnvSecretKey, err)
	}

	// Execute-only for others (no listing; every secret inside is 0600) so that, when the app
	// runs as root, the embedded PostgreSQL's unprivileged user can pass through to its cluster.
	if err := os.MkdirAll(dataDir, 0o711); err != nil {
		return nil, fmt.Errorf("%s: creating the data directory: %w", EnvDataDir, err)
	}
	key := make([]byte, SecretKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Written beside the target and hard-linked into place: the key appears complete or not
	// at all, and when two processes start together the first link wins and both use it.
	tmp, err := os.CreateTemp(dataDir, ".secret-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("writing the development key: %w", err)
	}
	defer os.Remove(tmp.Name()) // CreateTemp makes it 0600, which the key needs
	if _, err := tmp.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return developmentSecretKey(dataDir)
		}
		return nil, fmt.Errorf("writing the development key: %w", err)
	}
	return key, nil
}

func redactURLs(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = redactURL(s)
	}
	return out
}

// redactURL hides the password of a URL-shaped string; anything else is returned as is.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// DepositAddress is one entry of CLEARVEST_DEPOSIT_ADDRESSES.
type DepositAddress struct {
	Asset   asset.Asset
	Network payout.Network
	Address string
}

// ParseDepositAddresses reads CLEARVEST_DEPOSIT_ADDRESSES: ASSET/NETWORK=ADDRESS entries
// separated by commas, e.g. "BTC/BTC=bc1q…,USDT/TRC20=T…". Each asset must travel on its network,
// each address must pass the network's checksum, and each asset and network may appear once.
func ParseDepositAddresses(s string) ([]DepositAddress, error) {
	const form = "BTC/BTC=bc1q...,USDT/TRC20=T..."
	var out []DepositAddress
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		route, addr, ok := strings.Cut(item, "=")
		a, n, ok2 := strings.Cut(strings.TrimSpace(route), "/")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s: %q is not ASSET/NETWORK=ADDRESS; write it like %s", EnvDepositAddresses, item, form)
		}
		d := DepositAddress{Asset: asset.Asset(strings.TrimSpace(a)), Network: payout.Network(strings.TrimSpace(n))}
		if err := payout.CheckRoute(d.Asset, d.Network); err != nil {
			return nil, fmt.Errorf("%s: %s/%s: %v", EnvDepositAddresses, d.Asset, d.Network, err)
		}
		key := string(d.Asset) + "/" + string(d.Network)
		if seen[key] {
			return nil, fmt.Errorf("%s: %s is given twice", EnvDepositAddresses, key)
		}
		seen[key] = true
		norm, err := payout.NormalizeAddress(string(d.Network), addr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", EnvDepositAddresses, key, err)
		}
		d.Address = norm
		out = append(out, d)
	}
	return out, nil
}
