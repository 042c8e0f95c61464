// Package settings holds the operating settings that admins change in the staff console: the
// withdrawal fee schedule, the referral bonus and its minimum deposit, the thresholds of the
// four-eyes rule, the deposit addresses and the support contact. Each change is an event of the
// one stream "settings-global", with its reason; who made it travels in the event's metadata.
// A section with no event yet has its first-start default (the environment), which the
// application layer supplies.
package settings

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"clearvest/domain/aggregate"
	"clearvest/domain/asset"
	"clearvest/domain/domainerr"
	"clearvest/domain/fees"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/payout"
)

// StreamCategory is the category of the settings stream; StreamID its one id.
const (
	StreamCategory = "settings"
	StreamID       = "global"
)

// Section names one group of settings changed together.
type Section string

// The sections.
const (
	SectionWithdrawalFee    Section = "withdrawalFee"
	SectionReferral         Section = "referral"
	SectionApprovals        Section = "approvals"
	SectionDepositAddresses Section = "depositAddresses"
	SectionSupport          Section = "support"
)

// Sections lists every section in the order the console shows them.
var Sections = []Section{SectionWithdrawalFee, SectionReferral, SectionApprovals, SectionDepositAddresses, SectionSupport}

// MinReasonRunes and MaxReasonRunes bound the reason every change must give.
const (
	MinReasonRunes = 3
	MaxReasonRunes = 500
)

// MaxAddresses bounds the deposit address list.
const MaxAddresses = 20

// Errors.
var (
	ErrUnknownSection = domainerr.New(domainerr.NotFound, "There is no such settings section.")
	ErrReason         = field("reason", "Please give a reason of 3 to 500 characters.")
	ErrUnchanged      = domainerr.New(domainerr.RuleBroken, "Nothing changed: the new values are the current ones.")
)

func field(name, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = name
	return e
}

func fieldErr(name, message string) error { return domainerr.Field(name, message) }

// ParseSection reads a section name.
func ParseSection(s string) (Section, error) {
	for _, x := range Sections {
		if string(x) == s {
			return x, nil
		}
	}
	return "", ErrUnknownSection
}

// CheckReason checks the reason of a change and returns it trimmed.
func CheckReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	n := utf8.RuneCountInString(reason)
	if !utf8.ValidString(reason) || n < MinReasonRunes || n > MaxReasonRunes ||
		strings.IndexFunc(reason, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) >= 0 {
		return "", ErrReason
	}
	return reason, nil
}

// WithdrawalFee is the withdrawal fee schedule's terms, as decimal strings in events.
type WithdrawalFee struct {
	Percent decimal.Decimal `json:"percent"`
	Flat    money.Money     `json:"flat"`
	Minimum money.Money     `json:"minimum"`
	Cap     money.Money     `json:"cap"` // zero: no cap
}

// FromSchedule returns the terms of a schedule.
func FromSchedule(s fees.Schedule) WithdrawalFee {
	t := s.Terms()
	return WithdrawalFee{Percent: t.Percent, Flat: t.Flat, Minimum: t.Minimum, Cap: t.Cap}
}

// Schedule checks the terms and returns them as a schedule. Each broken rule names its field.
func (f WithdrawalFee) Schedule() (fees.Schedule, error) {
	switch {
	case f.Percent.IsNegative():
		return fees.Schedule{}, fieldErr("percent", "The percentage cannot be below zero.")
	case f.Percent.GreaterThanOrEqual(decimal.NewFromInt(100)):
		return fees.Schedule{}, fieldErr("percent", "The percentage must be below 100.")
	case !f.Percent.Equal(f.Percent.Truncate(fees.MaxPercentDecimals)):
		return fees.Schedule{}, fieldErr("percent", "The percentage can have at most 4 decimal places.")
	case f.Flat.IsNegative():
		return fees.Schedule{}, fieldErr("flat", "The flat fee cannot be below zero.")
	case f.Minimum.IsNegative():
		return fees.Schedule{}, fieldErr("minimum", "The minimum cannot be below zero.")
	case f.Cap.IsNegative():
		return fees.Schedule{}, fieldErr("cap", "The cap cannot be below zero.")
	case f.Cap.IsPositive() && !f.Percent.IsPositive():
		return fees.Schedule{}, fieldErr("cap", "A cap only limits a percentage; without one, leave the cap empty.")
	case f.Cap.IsPositive() && f.Cap.LessThan(f.Flat):
		return fees.Schedule{}, fieldErr("cap", "The cap cannot be below the flat fee.")
	}
	s, err := fees.New(fees.Withdrawal, fees.Terms{Minimum: f.Minimum, Percent: f.Percent, Flat: f.Flat, Cap: f.Cap})
	if err != nil {
		return fees.Schedule{}, domainerr.Field("minimum", err.Error())
	}
	return s, nil
}

// Equal reports whether two fee schedules have the same terms.
func (f WithdrawalFee) Equal(g WithdrawalFee) bool {
	return f.Percent.Equal(g.Percent) && f.Flat.Equal(g.Flat) && f.Minimum.Equal(g.Minimum) && f.Cap.Equal(g.Cap)
}

// Referral is what a referrer earns, and the least deposit of the referred user that earns it.
type Referral struct {
	Bonus      money.Money `json:"bonus"`
	MinDeposit money.Money `json:"minDeposit"`
}

// Check checks the referral terms: both amounts positive, and the bonus no more than the deposit
// that earns it.
func (r Referral) Check() error {
	switch {
	case !r.Bonus.IsPositive():
		return fieldErr("bonus", "The bonus must be more than zero.")
	case !r.MinDeposit.IsPositive():
		return fieldErr("minDeposit", "The minimum deposit must be more than zero.")
	case r.MinDeposit.LessThan(r.Bonus):
		return fieldErr("bonus", "The bonus cannot be more than the minimum deposit that earns it.")
	}
	return nil
}

// Approvals are the thresholds of the four-eyes rule: a deposit confirmation needs a second staff
// member when the amount received differs from the declared one by more than
// DepositTolerancePercent, or is above DepositThreshold; a withdrawal payout above
// WithdrawalThreshold does too.
type Approvals struct {
	DepositTolerancePercent decimal.Decimal `json:"depositTolerancePercent"`
	DepositThreshold        money.Money     `json:"depositThreshold"`
	WithdrawalThreshold     money.Money     `json:"withdrawalThreshold"`
}

// Check checks the thresholds against the ceiling on amounts (zero: none).
func (a Approvals) Check(ceiling money.Money) error {
	switch {
	case a.DepositTolerancePercent.IsNegative():
		return fieldErr("depositTolerancePercent", "The tolerance cannot be below zero.")
	case a.DepositTolerancePercent.GreaterThan(decimal.NewFromInt(100)):
		return fieldErr("depositTolerancePercent", "The tolerance cannot be above 100 %.")
	case !a.DepositTolerancePercent.Equal(a.DepositTolerancePercent.Truncate(2)):
		return fieldErr("depositTolerancePercent", "The tolerance can have at most 2 decimal places.")
	case !a.DepositThreshold.IsPositive():
		return fieldErr("depositThreshold", "The deposit threshold must be more than zero.")
	case !a.WithdrawalThreshold.IsPositive():
		return fieldErr("withdrawalThreshold", "The withdrawal threshold must be more than zero.")
	case ceiling.IsPositive() && ceiling.LessThan(a.DepositThreshold):
		return fieldErr("depositThreshold", "The deposit threshold cannot be above the ceiling on amounts, "+ceiling.Dollars()+".")
	case ceiling.IsPositive() && ceiling.LessThan(a.WithdrawalThreshold):
		return fieldErr("withdrawalThreshold", "The withdrawal threshold cannot be above the ceiling on amounts, "+ceiling.Dollars()+".")
	}
	return nil
}

// Equal reports whether two sets of thresholds are the same.
func (a Approvals) Equal(b Approvals) bool {
	return a.DepositTolerancePercent.Equal(b.DepositTolerancePercent) && a.DepositThreshold.Equal(b.DepositThreshold) &&
		a.WithdrawalThreshold.Equal(b.WithdrawalThreshold)
}

// Address is where investors send one asset on one network.
type Address struct {
	Asset   asset.Asset    `json:"asset"`
	Network payout.Network `json:"network"`
	Address string         `json:"address"`
}

// CheckAddresses checks a deposit address list with the networks' own validators and returns
// it with each address in its normal form. Field names are "addresses.<index>".
func CheckAddresses(list []Address) ([]Address, error) {
	if len(list) > MaxAddresses {
		return nil, fieldErr("addresses", "At most 20 deposit addresses can be listed.")
	}
	out := make([]Address, 0, len(list))
	seen := map[string]bool{}
	for i, d := range list {
		name := "addresses." + itoa(i)
		if err := payout.CheckRoute(d.Asset, d.Network); err != nil {
			return nil, fieldErr(name, string(d.Asset)+" cannot be sent on "+string(d.Network)+".")
		}
		key := string(d.Asset) + "/" + string(d.Network)
		if seen[key] {
			return nil, fieldErr(name, key+" is listed twice.")
		}
		seen[key] = true
		norm, err := payout.NormalizeAddress(string(d.Network), d.Address)
		if err != nil {
			return nil, fieldErr(name, err.Error())
		}
		out = append(out, Address{Asset: d.Asset, Network: d.Network, Address: norm})
	}
	return out, nil
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func equalAddresses(a, b []Address) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Support is the contact shown on the support page.
type Support struct {
	Email string `json:"email"`
}

// Check checks the support e-mail address and returns the contact normalised.
func (s Support) Check() (Support, error) {
	s.Email = strings.TrimSpace(s.Email)
	if identity.ValidateEmail(s.Email) != nil {
		return Support{}, fieldErr("email", "Please enter a valid e-mail address.")
	}
	return s, nil
}

// Values are every setting as they stand.
type Values struct {
	WithdrawalFee    WithdrawalFee
	Referral         Referral
	Approvals        Approvals
	DepositAddresses []Address
	Support          Support
}

// Settings is the aggregate of the settings stream. It knows only the sections changed by an
// event; the caller passes the values in force (defaults included) to each change, so that an
// unchanged value raises nothing.
type Settings struct {
	aggregate.Root
}

// New returns the aggregate before its first event.
func New() *Settings { return &Settings{} }

// Apply folds an event in; the aggregate keeps no state of its own (the read side folds the
// values), so there is nothing to do.
func (s *Settings) Apply(aggregate.Event) {}

// ChangeWithdrawalFee records a new fee schedule.
func (s *Settings) ChangeWithdrawalFee(old, next WithdrawalFee, reason string, at time.Time) error {
	reason, err := CheckReason(reason)
	if err != nil {
		return err
	}
	if _, err := next.Schedule(); err != nil {
		return err
	}
	if next.Equal(old) {
		return ErrUnchanged
	}
	aggregate.Raise(s, WithdrawalFeeChanged{WithdrawalFee: next, Record: Record{Reason: reason, At: at.UTC()}})
	return nil
}

// ChangeReferral records a new referral bonus and minimum.
func (s *Settings) ChangeReferral(old, next Referral, reason string, at time.Time) error {
	reason, err := CheckReason(reason)
	if err != nil {
		return err
	}
	if err := next.Check(); err != nil {
		return err
	}
	if next.Bonus.Equal(old.Bonus) && next.MinDeposit.Equal(old.MinDeposit) {
		return ErrUnchanged
	}
	aggregate.Raise(s, ReferralChanged{Referral: next, Record: Record{Reason: reason, At: at.UTC()}})
	return nil
}

// ChangeApprovals records new four-eyes thresholds; ceiling is the ceiling on amounts.
func (s *Settings) ChangeApprovals(old, next Approvals, ceiling money.Money, reason string, at time.Time) error {
	reason, err := CheckReason(reason)
	if err != nil {
		return err
	}
	if err := next.Check(ceiling); err != nil {
		return err
	}
	if next.Equal(old) {
		return ErrUnchanged
	}
	aggregate.Raise(s, ApprovalsChanged{Approvals: next, Record: Record{Reason: reason, At: at.UTC()}})
	return nil
}

// ChangeDepositAddresses records a new deposit address list.
func (s *Settings) ChangeDepositAddresses(old, next []Address, reason string, at time.Time) error {
	reason, err := CheckReason(reason)
	if err != nil {
		return err
	}
	next, err = CheckAddresses(next)
	if err != nil {
		return err
	}
	if equalAddresses(old, next) {
		return ErrUnchanged
	}
	aggregate.Raise(s, DepositAddressesChanged{Addresses: next, Record: Record{Reason: reason, At: at.UTC()}})
	return nil
}

// ChangeSupport records a new support contact.
func (s *Settings) ChangeSupport(old, next Support, reason string, at time.Time) error {
	reason, err := CheckReason(reason)
	if err != nil {
		return err
	}
	if next, err = next.Check(); err != nil {
		return err
	}
	if strings.EqualFold(next.Email, old.Email) && next.Email == old.Email {
		return ErrUnchanged
	}
	aggregate.Raise(s, SupportChanged{Support: next, Record: Record{Reason: reason, At: at.UTC()}})
	return nil
}

// Fold applies a settings event to values and returns the section it changed.
func Fold(v *Values, e aggregate.Event) (Section, bool) {
	switch e := e.(type) {
	case WithdrawalFeeChanged:
		v.WithdrawalFee = e.WithdrawalFee
		return SectionWithdrawalFee, true
	case ReferralChanged:
		v.Referral = e.Referral
		return SectionReferral, true
	case ApprovalsChanged:
		v.Approvals = e.Approvals
		return SectionApprovals, true
	case DepositAddressesChanged:
		v.DepositAddresses = append([]Address(nil), e.Addresses...)
		return SectionDepositAddresses, true
	case SupportChanged:
		v.Support = e.Support
		return SectionSupport, true
	}
	return "", false
}
