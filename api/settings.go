package api

import (
	"context"
	"errors"
	"strings"

	"github.com/shopspring/decimal"

	"clearvest/api/apigen"
	appplans "clearvest/app/plans"
	appsettings "clearvest/app/settings"
	"clearvest/domain/asset"
	"clearvest/domain/domainerr"
	"clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/domain/plaindecimal"
	"clearvest/domain/plan"
	"clearvest/domain/settings"
	"clearvest/eventstore"
)

// errSettingsUnavailable answers the settings operations of a server wired without them.
var errSettingsUnavailable = domainerr.New(domainerr.RuleBroken, "Settings are not available.")

const (
	msgPlanCreated = "The plan was created."
	msgPlanVersion = "The new terms are in force for new investments."
	msgPlanRetired = "The plan is retired."
)

func (s *server) settingsCaller(ctx context.Context) (appsettings.Actor, error) {
	if s.settings == nil {
		return appsettings.Actor{}, errSettingsUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return appsettings.Actor{}, err
	}
	return appsettings.Actor{UserID: a.UserID, Role: a.Role, IP: a.Client.IP}, nil
}

func settingsMeta(a appsettings.Actor) eventstore.Metadata {
	return eventstore.Metadata{ActorID: a.UserID, ActorRole: string(a.Role), ClientIP: a.IP}
}

// GetSettings answers the console: the values in force, the history of changes and every plan.
func (s *server) GetSettings(ctx context.Context, _ apigen.GetSettingsRequestObject) (apigen.GetSettingsResponseObject, error) {
	if _, err := s.settingsCaller(ctx); err != nil {
		return nil, err
	}
	out, err := s.settingsJSON(ctx)
	if err != nil {
		return nil, err
	}
	return apigen.GetSettings200JSONResponse(out), nil
}

func (s *server) settingsJSON(ctx context.Context) (apigen.Settings, error) {
	v, err := s.settings.Current(ctx)
	if err != nil {
		return apigen.Settings{}, err
	}
	history, err := s.settings.History(ctx)
	if err != nil {
		return apigen.Settings{}, err
	}
	v.Support = s.supportContact(v.Support)
	out := apigen.Settings{
		WithdrawalFee: feeJSON(v.WithdrawalFee), Referral: referralJSON(v.Referral), Approvals: approvalsJSON(v.Approvals),
		DepositAddresses: addressesJSON(v.DepositAddresses), Support: apigen.SupportSettings{Email: v.Support.Email},
		MaxAmount: s.settings.Ceiling().String(), History: make([]apigen.SettingsChange, 0, len(history)), Plans: []apigen.SettingsPlan{},
	}
	for _, c := range history {
		old := c.Old
		old.Support = s.supportContact(old.Support)
		out.History = append(out.History, apigen.SettingsChange{Section: string(c.Section), At: c.At, Reason: c.Reason,
			By: apigen.StaffPerson{UnderscoreId: c.ActorID, Name: c.ActorName}, Old: sectionJSON(c.Section, old), New: sectionJSON(c.Section, c.New)})
	}
	if s.plans != nil {
		list, err := s.plans.All(ctx)
		if err != nil {
			return apigen.Settings{}, err
		}
		for _, p := range list {
			t := p.Terms
			out.Plans = append(out.Plans, apigen.SettingsPlan{UnderscoreId: p.ID, Name: p.Name, Active: p.Active, Version: p.Version,
				Min: t.Min.String(), Max: t.Max.String(), TermDays: t.TermDays, TermRate: t.RateText(), Apr: t.APRPercent().StringFixed(plan.APRDecimals)})
		}
	}
	return out, nil
}

// supportContact is the support contact in force: the one set in the console, or else the site
// content's.
func (s *server) supportContact(v settings.Support) settings.Support {
	if v.Email == "" && s.content != nil {
		if sup, err := s.content.Support(); err == nil {
			v.Email = sup.Email
		}
	}
	return v
}

func feeJSON(f settings.WithdrawalFee) apigen.WithdrawalFeeSettings {
	return apigen.WithdrawalFeeSettings{Percent: f.Percent.String(), Flat: f.Flat.String(), Minimum: f.Minimum.String(), Cap: f.Cap.String()}
}

func referralJSON(r settings.Referral) apigen.ReferralSettings {
	return apigen.ReferralSettings{Bonus: r.Bonus.String(), MinDeposit: r.MinDeposit.String()}
}

func approvalsJSON(a settings.Approvals) apigen.ApprovalSettings {
	return apigen.ApprovalSettings{DepositTolerancePercent: a.DepositTolerancePercent.String(),
		DepositThreshold: a.DepositThreshold.String(), WithdrawalThreshold: a.WithdrawalThreshold.String()}
}

func addressesJSON(list []settings.Address) apigen.DepositAddressSettings {
	out := apigen.DepositAddressSettings{Addresses: make([]apigen.SettingsAddress, 0, len(list))}
	for _, d := range list {
		out.Addresses = append(out.Addresses, apigen.SettingsAddress{Asset: string(d.Asset), Network: string(d.Network), Address: d.Address})
	}
	return out
}

func sectionJSON(section settings.Section, v settings.Values) apigen.SettingsValues {
	var out apigen.SettingsValues
	switch section {
	case settings.SectionWithdrawalFee:
		f := feeJSON(v.WithdrawalFee)
		out.WithdrawalFee = &f
	case settings.SectionReferral:
		r := referralJSON(v.Referral)
		out.Referral = &r
	case settings.SectionApprovals:
		a := approvalsJSON(v.Approvals)
		out.Approvals = &a
	case settings.SectionDepositAddresses:
		d := addressesJSON(v.DepositAddresses)
		out.DepositAddresses = &d
	case settings.SectionSupport:
		out.Support = &apigen.SupportSettings{Email: v.Support.Email}
	}
	return out
}

var errSectionMissing = domainerr.New(domainerr.Invalid, "The body has no values for this section.")

// UpdateSettings changes one section.
func (s *server) UpdateSettings(ctx context.Context, req apigen.UpdateSettingsRequestObject) (apigen.UpdateSettingsResponseObject, error) {
	a, err := s.settingsCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	section, err := settings.ParseSection(string(req.Section))
	if err != nil {
		return nil, err
	}
	if _, err := settings.CheckReason(req.Body.Reason); err != nil {
		return nil, err
	}
	next, err := s.settings.Current(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	switch section {
	case settings.SectionWithdrawalFee:
		if b.WithdrawalFee == nil {
			return nil, errSectionMissing
		}
		f := b.WithdrawalFee
		if next.WithdrawalFee.Percent, err = parsePercent("percent", f.Percent); err != nil {
			return nil, err
		}
		if next.WithdrawalFee.Flat, err = parseAmount("flat", f.Flat, true); err != nil {
			return nil, err
		}
		if next.WithdrawalFee.Minimum, err = parseAmount("minimum", f.Minimum, true); err != nil {
			return nil, err
		}
		if next.WithdrawalFee.Cap, err = parseAmount("cap", f.Cap, true); err != nil {
			return nil, err
		}
	case settings.SectionReferral:
		if b.Referral == nil {
			return nil, errSectionMissing
		}
		if next.Referral.Bonus, err = parseAmount("bonus", b.Referral.Bonus, false); err != nil {
			return nil, err
		}
		if next.Referral.MinDeposit, err = parseAmount("minDeposit", b.Referral.MinDeposit, false); err != nil {
			return nil, err
		}
	case settings.SectionApprovals:
		if b.Approvals == nil {
			return nil, errSectionMissing
		}
		if next.Approvals.DepositTolerancePercent, err = parsePercent("depositTolerancePercent", b.Approvals.DepositTolerancePercent); err != nil {
			return nil, err
		}
		if next.Approvals.DepositThreshold, err = parseAmount("depositThreshold", b.Approvals.DepositThreshold, false); err != nil {
			return nil, err
		}
		if next.Approvals.WithdrawalThreshold, err = parseAmount("withdrawalThreshold", b.Approvals.WithdrawalThreshold, false); err != nil {
			return nil, err
		}
	case settings.SectionDepositAddresses:
		if b.DepositAddresses == nil {
			return nil, errSectionMissing
		}
		next.DepositAddresses = next.DepositAddresses[:0]
		for _, d := range b.DepositAddresses.Addresses {
			next.DepositAddresses = append(next.DepositAddresses, settings.Address{Asset: asset.Asset(strings.ToUpper(strings.TrimSpace(d.Asset))),
				Network: payout.Network(strings.ToUpper(strings.TrimSpace(d.Network))), Address: d.Address})
		}
	case settings.SectionSupport:
		if b.Support == nil {
			return nil, errSectionMissing
		}
		next.Support = settings.Support{Email: b.Support.Email}
	}
	pos, err := s.settings.Update(ctx, a, section, next, b.Reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	out, err := s.settingsJSON(ctx)
	if err != nil {
		return nil, err
	}
	return apigen.UpdateSettings200JSONResponse(out), nil
}

func parseAmount(field, s string, zeroOK bool) (money.Money, error) {
	s = strings.TrimSpace(s)
	if s == "" && zeroOK {
		return money.Zero, nil
	}
	m, err := money.Parse(s)
	if err != nil {
		return money.Money{}, domainerr.Field(field, "Please enter an amount of US dollars with at most two decimals, for example 10.00.")
	}
	if m.IsNegative() {
		return money.Money{}, domainerr.Field(field, "The amount cannot be below zero.")
	}
	if !zeroOK && !m.IsPositive() {
		return money.Money{}, domainerr.Field(field, "The amount must be more than zero.")
	}
	return m, nil
}

func parsePercent(field, s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	d, ok := plaindecimal.Parse(strings.TrimPrefix(s, "-"))
	if !ok || len(s) > 20 {
		return decimal.Decimal{}, domainerr.Field(field, "Please enter a percentage such as 1 or 1.5.")
	}
	if neg {
		return d.Neg(), nil
	}
	return d, nil
}

// planFields names the field of a plan rule a request broke.
func planFields(err error) error {
	for _, x := range []struct {
		err   error
		field string
	}{{plan.ErrNameLength, "name"}, {plan.ErrNameInvalid, "name"}, {appplans.ErrNameTaken, "name"}} {
		if errors.Is(err, x.err) {
			var d *domainerr.Error
			if errors.As(err, &d) {
				e := *d
				e.Field = x.field
				return &e
			}
		}
	}
	return err
}

func planTerms(minS, maxS string, days int, rate string) (plan.Terms, error) {
	min, err := parseAmount("min", minS, false)
	if err != nil {
		return plan.Terms{}, err
	}
	max, err := parseAmount("max", maxS, false)
	if err != nil {
		return plan.Terms{}, err
	}
	r, err := plan.ParseRate(strings.TrimSpace(rate))
	if err != nil {
		return plan.Terms{}, err
	}
	t := plan.Terms{Min: min, Max: max, TermDays: days, TermRate: r}
	return t, t.Validate()
}

// CreatePlan adds a plan, offered at once.
func (s *server) CreatePlan(ctx context.Context, req apigen.CreatePlanRequestObject) (apigen.CreatePlanResponseObject, error) {
	a, err := s.settingsCaller(ctx)
	if err != nil {
		return nil, err
	}
	if s.plans == nil {
		return nil, errPlansUnavailable
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	b := req.Body
	reason, err := settings.CheckReason(b.Reason)
	if err != nil {
		return nil, err
	}
	name := plan.NormalizeName(b.Name)
	if err := plan.ValidateName(name); err != nil {
		return nil, planFields(err)
	}
	t, err := planTerms(b.Min, b.Max, b.TermDays, b.TermRate)
	if err != nil {
		return nil, err
	}
	created, err := s.plans.Create(ctx, settingsMeta(a), appplans.CreateInput{Name: name, Terms: t, Active: true, Reason: reason})
	if err != nil {
		return nil, planFields(err)
	}
	RecordPosition(ctx, created.Position)
	return apigen.CreatePlan201JSONResponse{UnderscoreId: created.ID, Message: msgPlanCreated}, nil
}

// NewPlanVersion records new terms as the plan's next version.
func (s *server) NewPlanVersion(ctx context.Context, req apigen.NewPlanVersionRequestObject) (apigen.NewPlanVersionResponseObject, error) {
	a, err := s.settingsCaller(ctx)
	if err != nil {
		return nil, err
	}
	if s.plans == nil {
		return nil, errPlansUnavailable
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	b := req.Body
	reason, err := settings.CheckReason(b.Reason)
	if err != nil {
		return nil, err
	}
	t, err := planTerms(b.Min, b.Max, b.TermDays, b.TermRate)
	if err != nil {
		return nil, err
	}
	pos, err := s.plans.NewVersion(ctx, settingsMeta(a), req.PlanId, t, reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.NewPlanVersion200JSONResponse{Message: msgPlanVersion}, nil
}

// RetirePlan stops a plan taking new investments.
func (s *server) RetirePlan(ctx context.Context, req apigen.RetirePlanRequestObject) (apigen.RetirePlanResponseObject, error) {
	a, err := s.settingsCaller(ctx)
	if err != nil {
		return nil, err
	}
	if s.plans == nil {
		return nil, errPlansUnavailable
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	reason, err := settings.CheckReason(req.Body.Reason)
	if err != nil {
		return nil, err
	}
	pos, err := s.plans.Retire(ctx, settingsMeta(a), req.PlanId, reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RetirePlan200JSONResponse{Message: msgPlanRetired}, nil
}
