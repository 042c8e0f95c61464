// Package account is the money aggregate: one stream per user ("account-<userID>") holding
// everything that moves that user's money, and the rules that keep it whole.
//
// Balances (all US dollars to the cent, docs/money.md):
//   - available: what the user may invest or withdraw now;
//   - held: reserved by investments and withdrawals that wait for staff;
//   - invested: principal of active investments;
//   - returns: returns paid at maturity, in total;
//   - fees: fees charged less fees waived, in total;
//   - adjustments: staff corrections, signed, in total.
//
// Rules:
//   - Every amount a user or staff member enters is more than zero; an adjustment's is not zero.
//   - available ≥ 0 and held ≥ 0 after every event; a command that would break either is refused
//     ("Insufficient balance").
//   - A deposit moves nothing until staff confirm it; confirmation credits what actually arrived,
//     which may differ from what was requested. Rejection credits nothing.
//   - An investment or a withdrawal reserves its amount at once, as a hold with the request's id.
//     Staff approval settles (posts) the hold for exactly its amount; rejection releases (voids)
//     it. A hold is posted once or voided once, never both.
//   - An investment's amount lies within the plan's min and max as captured with the request;
//     the investment keeps those terms. Activation starts the term (end = start + term days) and
//     fixes the return: principal × term rate, half-even to the cent. Maturity, on or after the
//     end, pays principal and return into the available balance.
//   - A withdrawal's fee comes from the published schedule (the caller computes it) and is less
//     than the amount: the user receives amount − fee, so a fee never stops anyone withdrawing
//     their whole available balance. The fee is charged when the withdrawal is approved.
//   - Staff may waive (refund) a fee charged on an approved withdrawal, never more than was
//     charged and not waived yet.
//   - A referral bonus is credited at most once per referred user, never for oneself.
//   - A correction (adjustment) has a signed amount, a category and a reason, and may not make
//     the available balance negative.
//   - Request ids are unique across the account; a request with an id already used is a
//     Conflict, so a retried request never holds twice. Deciding a request already decided is a
//     Conflict too, never a second effect.
//   - Staff never decide or correct money on their own account. A decision that needed a second
//     person (a countersigned one) names both, who are two different people, neither the owner.
//
// Who may run which command (subscriber, author, admin) is the API policy's concern; the
// aggregate records the staff id because rules and the audit trail need it.
package account

import (
	"cmp"
	"crypto/sha1" //nolint:gosec // a name-based id, not a security hash
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"clearvest/domain/aggregate"
	"clearvest/domain/asset"
	"clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/domain/plan"
	"clearvest/domain/textcheck"
)

// Limits on the free text and ids commands accept.
const (
	MaxIDLength   = 64
	MaxTextRunes  = 500
	MaxFieldRunes = 128 // assets, networks, addresses, transaction hashes
)

// Status is where a deposit, investment or withdrawal stands. The strings are the API's.
type Status string

const (
	StatusPending   Status = "Pending"   // any request, until staff decide
	StatusConfirmed Status = "Confirmed" // a deposit
	StatusApproved  Status = "Approved"  // a withdrawal
	StatusActive    Status = "Active"    // an investment, during its term
	StatusEnded     Status = "Ended"     // an investment, after maturity
	StatusRejected  Status = "Rejected"  // any request
)

type (
	HoldStatus string
	HoldKind   string
	Category   string
)

const (

	// A hold is pending until it is posted (settled) or voided (released).
	HoldPending HoldStatus = "pending"
	HoldPosted  HoldStatus = "posted"
	HoldVoided  HoldStatus = "voided"

	HoldInvestment HoldKind = "investment"
	HoldWithdrawal HoldKind = "withdrawal"
)

// Instruction is what happens to an investment's payout at maturity.
type Instruction string

const (
	InstructionPayOut   Instruction = "payout"   // principal and return to the available balance (default)
	InstructionReinvest Instruction = "reinvest" // principal and return into a new investment, same terms
)

// Valid reports whether i is a known instruction.
func (i Instruction) Valid() bool { return i == InstructionPayOut || i == InstructionReinvest }

// Adjustment categories.
const (
	CategoryCorrection Category = "correction" // a mistake of ours put right
	CategoryGoodwill   Category = "goodwill"   // a gesture for a problem the user had
	CategoryChargeback Category = "chargeback" // an earlier credit taken back
	CategoryOther      Category = "other"
)

// Categories lists the adjustment categories in the order staff pages show them.
var Categories = []Category{CategoryCorrection, CategoryGoodwill, CategoryChargeback, CategoryOther}

// Valid reports whether c is a known category.
func (c Category) Valid() bool { return slices.Contains(Categories, c) }

// Balances are the dashboard figures of an account.
type Balances struct {
	Available   money.Money `json:"available"`
	Held        money.Money `json:"held"`
	Invested    money.Money `json:"invested"`
	Returns     money.Money `json:"returns"`
	Fees        money.Money `json:"fees"`
	Adjustments money.Money `json:"adjustments"`
	Referrals   money.Money `json:"referrals"`
}

// Equal reports whether every figure of b equals o's.
func (b Balances) Equal(o Balances) bool {
	return b.Available.Equal(o.Available) && b.Held.Equal(o.Held) && b.Invested.Equal(o.Invested) &&
		b.Returns.Equal(o.Returns) && b.Fees.Equal(o.Fees) && b.Adjustments.Equal(o.Adjustments) &&
		b.Referrals.Equal(o.Referrals)
}

// Hold is funds reserved for one request; its id is the request's.
type Hold struct {
	ID     string      `json:"id"`
	Kind   HoldKind    `json:"kind"`
	Amount money.Money `json:"amount"`
	Status HoldStatus  `json:"status"`
	Posted money.Money `json:"posted"` // the amount settled, when posted
}

// Deposit is one deposit request and its decision.
type Deposit struct {
	ID            string      `json:"id"`
	TransactionID string      `json:"transactionId"`
	Amount        money.Money `json:"amount"`
	Asset         string      `json:"asset"`
	Network       string      `json:"network"`
	OnChainAmount string      `json:"onChainAmount"`
	USDRate       string      `json:"usdRate"`
	TxHash        string      `json:"txHash,omitempty"`
	Address       string      `json:"address,omitempty"`
	Status        Status      `json:"status"`
	Received      money.Money `json:"received"`
	Notes         string      `json:"notes,omitempty"`
	StaffID       string      `json:"staffId,omitempty"`
	ApprovedBy    string      `json:"approvedBy,omitempty"` // the second staff member, when one was needed
	Source        string      `json:"source,omitempty"`     // SourceChain: seen on the chain, not declared
	RequestedAt   time.Time   `json:"requestedAt"`
	DecidedAt     time.Time   `json:"decidedAt"`
}

// Investment is one investment and where it stands.
type Investment struct {
	ID          string      `json:"id"`
	Terms       Terms       `json:"terms"`
	Amount      money.Money `json:"amount"`
	Status      Status      `json:"status"`
	Return      money.Money `json:"return"` // fixed at activation
	Start       time.Time   `json:"start"`
	End         time.Time   `json:"end"`
	Reason      string      `json:"reason,omitempty"`
	StaffID     string      `json:"staffId,omitempty"`
	RequestedAt time.Time   `json:"requestedAt"`
	DecidedAt   time.Time   `json:"decidedAt"`
	MaturedAt   time.Time   `json:"maturedAt"` // when it ended: at maturity, or when closed early

	Instruction    Instruction `json:"instruction"`
	ClosedEarly    bool        `json:"closedEarly,omitempty"`
	ReinvestedAs   string      `json:"reinvestedAs,omitempty"`   // the investment its payout went into
	ReinvestedFrom string      `json:"reinvestedFrom,omitempty"` // the investment whose payout started it
	// ReinvestRefused is why the reinvest instruction was not followed at maturity, if it was not.
	ReinvestRefused string `json:"reinvestRefused,omitempty"`
}

// Payout is what the investment pays at maturity: principal and the return.
func (inv Investment) Payout() money.Money { return inv.Amount.Add(inv.Return) }

// Withdrawal is one withdrawal request and its decision.
type Withdrawal struct {
	ID            string      `json:"id"`
	Amount        money.Money `json:"amount"`
	Fee           money.Money `json:"fee"`
	Address       string      `json:"address"`
	Network       string      `json:"network"`
	Asset         string      `json:"asset"`
	Status        Status      `json:"status"`
	TxHash        string      `json:"txHash,omitempty"`
	OnChainAmount string      `json:"onChainAmount,omitempty"`
	USDRate       string      `json:"usdRate,omitempty"`
	FeeWaived     money.Money `json:"feeWaived"`
	Reason        string      `json:"reason,omitempty"`
	StaffID       string      `json:"staffId,omitempty"`
	ApprovedBy    string      `json:"approvedBy,omitempty"` // the second staff member, when one was needed
	RequestedAt   time.Time   `json:"requestedAt"`
	DecidedAt     time.Time   `json:"decidedAt"`
}

// Receives is what the user is paid: the amount less the fee.
func (w Withdrawal) Receives() money.Money { return w.Amount.Sub(w.Fee) }

// Account is the aggregate. Create it with New and load the user's money stream into it.
type Account struct {
	aggregate.Root
	userID string

	bal Balances

	holds       map[string]*Hold
	deposits    map[string]*Deposit
	investments map[string]*Investment
	withdrawals map[string]*Withdrawal
	adjustments map[string]bool
	referrals   map[string]bool
	txIDs       map[string]bool
	// chainLinks names, by the id the chain watcher derived for a transfer, the declared deposit
	// that transfer was linked to (DepositLinkedToChain).
	chainLinks map[string]string
	exemption  FeeExemptionSet // the latest change of the fee exemption; zero: never set
	order      []string        // request ids (deposits, investments, withdrawals), oldest first

	// dry, when set, collects what the decision methods raise instead of applying it: Check
	// asks the same methods what they would have raised, without changing the account.
	dry *[]aggregate.Event
}

// New returns the empty account of userID, ready to load history into.
func New(userID string) *Account {
	return &Account{
		userID:      userID,
		holds:       map[string]*Hold{},
		deposits:    map[string]*Deposit{},
		investments: map[string]*Investment{},
		withdrawals: map[string]*Withdrawal{},
		adjustments: map[string]bool{},
		referrals:   map[string]bool{},
		txIDs:       map[string]bool{},
		chainLinks:  map[string]string{},
	}
}

// NewFor returns a constructor of userID's account, for loaders that take func() *Account.
func NewFor(userID string) func() *Account {
	return func() *Account { return New(userID) }
}

// Stream is the name of userID's money stream.
func Stream(userID string) string { return StreamCategory + "-" + userID }

// ---- deposits ----

// DepositRequest is what a user states when they say they sent crypto.
type DepositRequest struct {
	DepositID     string
	TransactionID string
	Amount        money.Money
	Asset         string
	Network       string
	OnChainAmount string
	USDRate       string
	TxHash        string // optional
	Address       string // where the user was told to send it; optional
}

// RequestDeposit records a deposit waiting for staff. Nothing is credited yet.
func (a *Account) RequestDeposit(r DepositRequest, at time.Time) error {
	return a.requestDeposit(r, "", at)
}

func (a *Account) requestDeposit(r DepositRequest, source string, at time.Time) error {
	if err := a.newRequestID(r.DepositID); err != nil {
		return err
	}
	txID := strings.TrimSpace(r.TransactionID)
	if !validField(txID, MaxIDLength) {
		return ErrInvalidTransaction
	}
	if a.txIDs[txID] {
		return ErrDuplicateTransaction
	}
	if _, err := money.Positive(r.Amount); err != nil {
		return err
	}
	asset, network, err := assetAndNetwork(r.Asset, r.Network)
	if err != nil {
		return err
	}
	if !validOnChain(asset, r.OnChainAmount) {
		return ErrInvalidOnChain
	}
	if !validRate(r.USDRate) {
		return ErrInvalidRate
	}
	// One transfer, one credit: the hash is kept in its network's one canonical form, the form
	// the platform-wide claim on it is keyed by.
	txHash := strings.TrimSpace(r.TxHash)
	if txHash != "" {
		if txHash, err = payout.CanonicalTxHash(payout.Network(network), txHash); err != nil {
			return err
		}
	}
	address := strings.TrimSpace(r.Address)
	if address != "" && !validField(address, MaxFieldRunes) {
		return ErrInvalidAddress
	}
	a.raise(DepositRequested{
		DepositID: r.DepositID, TransactionID: txID, Amount: r.Amount, Asset: asset, Network: network,
		OnChainAmount: r.OnChainAmount, USDRate: r.USDRate, TxHash: txHash, Address: address, Source: source, At: at.UTC(),
	})
	return nil
}

// SourceChain marks a deposit the chain watcher recorded and decided by itself (docs/chain.md).
const SourceChain = "chain"

// RecordChainDeposit records a deposit the chain watcher saw arrive at one of the investor's
// addresses: pending, like a declared one, until its transfer has enough confirmations. A
// deposit id already on the account (the transfer seen again) raises nothing.
func (a *Account) RecordChainDeposit(r DepositRequest, at time.Time) error {
	if _, ok := a.deposits[r.DepositID]; ok {
		return nil
	}
	if _, ok := a.chainLinks[r.DepositID]; ok {
		return nil // the transfer was linked to the deposit the investor declared
	}
	return a.requestDeposit(r, SourceChain, at)
}

// ConfirmChainDeposit credits a chain deposit whose transfer reached its confirmations:
// received is the on-chain amount at rate (USD per unit, as of rateAt). No staff member takes
// part; the event says so. A deposit already decided raises nothing and is no error: the
// watcher may see the same transfer again.
func (a *Account) ConfirmChainDeposit(depositID string, received money.Money, rate string, rateAt time.Time, confirmations uint64, at time.Time) error {
	d, err := a.chainDeposit(depositID)
	if err != nil || d.Status != StatusPending {
		return err
	}
	if _, err := money.Positive(received); err != nil {
		return err
	}
	if !validRate(rate) {
		return ErrInvalidRate
	}
	t := rateAt.UTC()
	a.raise(DepositConfirmed{DepositID: d.ID, Received: received, Source: SourceChain, Rate: rate, RateAt: &t,
		Confirmations: confirmations, At: at.UTC()})
	return nil
}

// RejectChainDeposit withdraws a chain deposit whose transfer left the chain before it was
// confirmed, with a reason the investor reads. A deposit already decided raises nothing.
func (a *Account) RejectChainDeposit(depositID, reason string, at time.Time) error {
	d, err := a.chainDeposit(depositID)
	if err != nil || d.Status != StatusPending {
		return err
	}
	if strings.TrimSpace(reason) == "" {
		return ErrRejectReasonRequired
	}
	a.raise(DepositRejected{DepositID: d.ID, Notes: reason, Source: SourceChain, At: at.UTC()})
	return nil
}

func (a *Account) chainDeposit(id string) (*Deposit, error) {
	if linked, ok := a.chainLinks[id]; ok {
		id = linked
	}
	d, ok := a.deposits[id]
	if !ok {
		return nil, ErrDepositNotFound
	}
	if d.Source != SourceChain && !a.linked(id) {
		// A declared deposit is decided by staff, under the four-eyes rules, never here.
		return nil, ErrDepositNotFound
	}
	return d, nil
}

func (a *Account) linked(depositID string) bool {
	for _, id := range a.chainLinks {
		if id == depositID {
			return true
		}
	}
	return false
}

// ChainLink is a transfer the chain watcher saw, as LinkDepositToChain records it.
type ChainLink struct {
	ChainDepositID string // the id the watcher derived for the transfer's deposit
	TxHash         string
	Address        string
	Asset          string
	OnChainAmount  string
}

// ChainLinked returns the deposit the transfer whose derived deposit id is chainDepositID was
// linked to, if it was.
func (a *Account) ChainLinked(chainDepositID string) (Deposit, bool) {
	id, ok := a.chainLinks[chainDepositID]
	if !ok {
		return Deposit{}, false
	}
	return a.Deposit(id)
}

// LinkDepositToChain links the investor's declared deposit depositID to the transfer the chain
// watcher saw with the same hash (docs/chain.md, "Declared and detected deposits"). Pending, it
// becomes a chain deposit; confirmed by staff, it keeps their decision and the link says the
// transfer is credited already. A rejected deposit, or one already linked to another transfer,
// is not linked (ErrDepositDecided): the transfer is a deposit of its own. The same link again
// raises nothing.
func (a *Account) LinkDepositToChain(depositID string, l ChainLink, at time.Time) error {
	if linked, ok := a.chainLinks[l.ChainDepositID]; ok && linked == depositID {
		return nil
	}
	if !validID(l.ChainDepositID) {
		return ErrInvalidID
	}
	if _, taken := a.deposits[l.ChainDepositID]; taken {
		return ErrDuplicateID
	}
	if _, taken := a.chainLinks[l.ChainDepositID]; taken {
		return ErrDuplicateID
	}
	d, ok := a.deposits[depositID]
	if !ok {
		return ErrDepositNotFound
	}
	if d.Source == SourceChain || a.linked(depositID) || d.Status == StatusRejected {
		return ErrDepositDecided
	}
	a.raise(DepositLinkedToChain{DepositID: depositID, TransactionID: d.TransactionID, ChainDepositID: l.ChainDepositID, TxHash: l.TxHash, Address: l.Address,
		Asset: l.Asset, OnChainAmount: l.OnChainAmount, At: at.UTC()})
	return nil
}

// Countersign is the second person of a four-eyes decision (domain/proposal): the proposal that
// asked for one and the staff member who approved it. The zero value is a decision one staff
// member took alone, below the thresholds.
type Countersign struct {
	ProposalID string
	ApproverID string
}

func (c Countersign) check(a *Account, staffID string) error {
	if c == (Countersign{}) {
		return nil
	}
	if !validID(c.ProposalID) {
		return ErrInvalidID
	}
	if err := a.staff(c.ApproverID); err != nil {
		return err
	}
	if c.ApproverID == staffID {
		return ErrSamePerson
	}
	return nil
}

// AllowAnotherDeposit refuses a new deposit request while max of this account's deposits are
// waiting for staff. Each one sits in the staff queue until someone checks the chain, so an
// investor who has already declared max of them waits for a decision before declaring more.
// The service checks it inside the request's command, on the state the request is decided on.
func (a *Account) AllowAnotherDeposit(max int) error {
	open := 0
	for _, d := range a.deposits {
		// A chain deposit waits for the network, not for staff, and the money was sent.
		if d.Status == StatusPending && d.Source != SourceChain {
			open++
		}
	}
	if open < max {
		return nil
	}
	waiting := strconv.Itoa(open) + " deposits"
	if open == 1 {
		waiting = "a deposit"
	}
	return ErrTooManyOpenDeposits.WithMessage("You have " + waiting + " waiting for confirmation. " +
		"Please wait until our team has confirmed or rejected one of them before declaring another.")
}

// ConfirmDeposit credits received, what actually arrived in USD, to the available balance.
func (a *Account) ConfirmDeposit(depositID string, received money.Money, notes, staffID string, at time.Time) error {
	return a.ConfirmDepositCountersigned(depositID, received, notes, staffID, Countersign{}, at)
}

// ConfirmDepositCountersigned is ConfirmDeposit as proposed by staffID and approved by a
// second staff member; neither may be the account's owner, and they are two people.
func (a *Account) ConfirmDepositCountersigned(depositID string, received money.Money, notes, staffID string, c Countersign, at time.Time) error {
	if _, err := a.pendingDeposit(depositID, staffID); err != nil {
		return err
	}
	if err := c.check(a, staffID); err != nil {
		return err
	}
	if _, err := money.Positive(received); err != nil {
		return err
	}
	notes, err := optionalText(notes, ErrNotesTooLong)
	if err != nil {
		return err
	}
	a.raise(DepositConfirmed{DepositID: depositID, Received: received, Notes: notes, StaffID: staffID,
		ProposalID: c.ProposalID, ApprovedBy: c.ApproverID, At: at.UTC()})
	return nil
}

// RejectDeposit closes a deposit without crediting anything. The reason is required: it is
// recorded on the event and shown to the investor with the deposit.
func (a *Account) RejectDeposit(depositID, notes, staffID string, at time.Time) error {
	if _, err := a.pendingDeposit(depositID, staffID); err != nil {
		return err
	}
	notes, err := optionalText(notes, ErrNotesTooLong)
	if err != nil {
		return err
	}
	if notes == "" {
		return ErrRejectReasonRequired
	}
	a.raise(DepositRejected{DepositID: depositID, Notes: notes, StaffID: staffID, At: at.UTC()})
	return nil
}

func (a *Account) pendingDeposit(id, staffID string) (*Deposit, error) {
	if err := a.staff(staffID); err != nil {
		return nil, err
	}
	d, ok := a.deposits[id]
	if !ok {
		return nil, ErrDepositNotFound
	}
	// The watcher credits a chain deposit at its confirmations or withdraws it when its block
	// leaves the chain; a staff decision beside it would credit the transfer twice or refuse
	// money that arrived.
	if d.Source == SourceChain {
		return nil, ErrChainDeposit
	}
	if d.Status != StatusPending {
		return nil, ErrDepositDecided
	}
	return d, nil
}

// ---- investments ----

// RequestInvestment holds amount for an investment under terms, the plan's terms as they are
// now. Whether the user may invest at all (verified e-mail, approved identity check) is decided
// before, on the user's stream.
func (a *Account) RequestInvestment(investmentID string, terms Terms, amount money.Money, at time.Time) error {
	if err := a.newRequestID(investmentID); err != nil {
		return err
	}
	terms, err := validTerms(terms)
	if err != nil {
		return err
	}
	if _, err := money.Positive(amount); err != nil {
		return err
	}
	if amount.LessThan(terms.Min) || terms.Max.LessThan(amount) {
		return ErrOutOfRange.WithMessage("Amount must be between " + terms.Min.Dollars() + " and " + terms.Max.Dollars() + " for the " + terms.PlanName + " plan")
	}
	if err := a.Covers(amount); err != nil {
		return err
	}
	a.raise(InvestmentRequested{InvestmentID: investmentID, Terms: terms, Amount: amount, At: at.UTC()})
	return nil
}

func validTerms(t Terms) (Terms, error) {
	t.PlanID, t.PlanName = strings.TrimSpace(t.PlanID), strings.TrimSpace(t.PlanName)
	switch {
	case !validField(t.PlanID, MaxIDLength), !validField(t.PlanName, MaxFieldRunes), t.PlanVersion < 1,
		t.TermDays < 1, t.TermDays > 36600, !validTermRate(t.TermRate),
		!t.Min.IsPositive(), t.Max.LessThan(t.Min):
		return Terms{}, ErrInvalidTerms
	}
	return t, nil
}

// ActivateInvestment approves a pending investment: its hold settles into the invested balance,
// the term starts at start and the return is fixed.
func (a *Account) ActivateInvestment(investmentID, staffID string, start time.Time) error {
	inv, err := a.pendingInvestment(investmentID, staffID)
	if err != nil {
		return err
	}
	rate := decimal.RequireFromString(inv.Terms.TermRate) // checked when requested
	start = start.UTC()
	a.raise(InvestmentActivated{
		InvestmentID: investmentID, Amount: inv.Amount, Return: inv.Amount.MulRate(rate),
		Start: start, End: start.AddDate(0, 0, inv.Terms.TermDays), StaffID: staffID,
	})
	return nil
}

// RejectInvestment refuses a pending investment and releases its hold.
func (a *Account) RejectInvestment(investmentID, reason, staffID string, at time.Time) error {
	inv, err := a.pendingInvestment(investmentID, staffID)
	if err != nil {
		return err
	}
	reason, err = requiredText(reason)
	if err != nil {
		return err
	}
	a.raise(InvestmentRejected{InvestmentID: investmentID, Amount: inv.Amount, Reason: reason, StaffID: staffID, At: at.UTC()})
	return nil
}

func (a *Account) pendingInvestment(id, staffID string) (*Investment, error) {
	if err := a.staff(staffID); err != nil {
		return nil, err
	}
	inv, ok := a.investments[id]
	if !ok {
		return nil, ErrInvestmentNotFound
	}
	if inv.Status != StatusPending {
		return nil, ErrInvestmentDecided
	}
	return inv, nil
}

// MatureInvestment pays an active investment's principal and return into the available
// balance, at or after its end. With the reinvest instruction the payout then starts a new
// active investment under the same terms, its term beginning at the old end. The new investment
// pays out at its own maturity unless the investor asks again: money is never locked for a term
// the investor did not choose.
func (a *Account) MatureInvestment(investmentID string, at time.Time) error {
	return a.MatureInvestmentChecked(investmentID, at, nil)
}

// ReinvestRule says why an investment's payout may not be reinvested, in words for the investor,
// or "" when it may. A reinvestment is a new investment, so the application passes the rules a
// new one must (ReinvestFacts.Refusal): facts outside the account (the plan's current limits,
// the identity check, the account's status) are its to gather.
type ReinvestRule func(inv Investment, amount money.Money) string

// MatureInvestmentChecked is MatureInvestment with the reinvest instruction followed only when
// rule allows it (nil allows it): otherwise the payout stays in the available balance, and the
// InvestmentMatured event says why. Money is never lost to a refused reinvestment.
func (a *Account) MatureInvestmentChecked(investmentID string, at time.Time, rule ReinvestRule) error {
	inv, ok := a.investments[investmentID]
	if !ok {
		return ErrInvestmentNotFound
	}
	if inv.Status != StatusActive {
		return ErrNotActive
	}
	if at.Before(inv.End) {
		return ErrNotDue
	}
	amount := inv.Payout()
	refused := ""
	if inv.Instruction == InstructionReinvest && rule != nil {
		refused = rule(*inv, amount)
	}
	a.raise(InvestmentMatured{InvestmentID: investmentID, Principal: inv.Amount, Return: inv.Return, At: at.UTC(), ReinvestRefused: refused})
	if inv.Instruction == InstructionReinvest && refused == "" {
		rate := decimal.RequireFromString(inv.Terms.TermRate) // checked when requested
		a.raise(InvestmentReinvested{
			InvestmentID: investmentID, NewInvestmentID: ReinvestmentID(investmentID), Terms: inv.Terms,
			Amount: amount, Return: amount.MulRate(rate), Start: inv.End, End: inv.End.AddDate(0, 0, inv.Terms.TermDays),
		})
	}
	return nil
}

// ReinvestmentID is the id of the investment that reinvests investmentID's payout. It is derived,
// not drawn, so that the same maturity always names the same new investment: a name-based
// (version 5 style) UUID of the old id.
func ReinvestmentID(investmentID string) string {
	sum := sha1.Sum([]byte("clearvest/reinvestment/" + investmentID))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// maxMaturitiesPerRun bounds MatureDue: a reinvestment chain left alone for years matures one
// term per step, and a bound keeps one command small; the next run carries on.
const maxMaturitiesPerRun = 1000

// MatureDue matures every active investment whose end is at or before at, earliest end first,
// including reinvestments that are themselves already due. With none due it raises nothing.
func (a *Account) MatureDue(at time.Time) error {
	return a.MatureDueChecked(at, nil)
}

// MatureDueChecked is MatureDue with each reinvestment allowed by rule
// (MatureInvestmentChecked).
func (a *Account) MatureDueChecked(at time.Time, rule ReinvestRule) error {
	for range maxMaturitiesPerRun {
		due := a.Due(at)
		if len(due) == 0 {
			return nil
		}
		if err := a.MatureInvestmentChecked(due[0], at, rule); err != nil {
			return err
		}
	}
	return nil
}

// SetMaturityInstruction records what happens at maturity to a pending or active investment's
// payout. Setting the instruction it already has changes nothing.
func (a *Account) SetMaturityInstruction(investmentID string, ins Instruction, at time.Time) error {
	inv, ok := a.investments[investmentID]
	if !ok {
		return ErrInvestmentNotFound
	}
	if !ins.Valid() {
		return ErrInvalidInstruction
	}
	if inv.Status != StatusPending && inv.Status != StatusActive {
		return ErrInvestmentEnded
	}
	if inv.instruction() == ins {
		return nil
	}
	a.raise(InvestmentInstructionSet{InvestmentID: investmentID, Instruction: ins, At: at.UTC()})
	return nil
}

func (inv *Investment) instruction() Instruction {
	if inv.Instruction == "" {
		return InstructionPayOut
	}
	return inv.Instruction
}

// Redemption is what closing an active investment early pays: the principal in full, with the
// return fixed at activation forfeited (the early-redemption rule of every plan, docs/investments.md).
type Redemption struct {
	InvestmentID string
	Principal    money.Money
	Forfeited    money.Money
}

// EarlyRedemption previews closing investmentID at at, without changing anything.
func (a *Account) EarlyRedemption(investmentID string, at time.Time) (Redemption, error) {
	inv, ok := a.investments[investmentID]
	if !ok {
		return Redemption{}, ErrInvestmentNotFound
	}
	if inv.Status != StatusActive {
		return Redemption{}, ErrNotActive
	}
	if !at.Before(inv.End) {
		return Redemption{}, ErrPastEnd
	}
	return Redemption{InvestmentID: investmentID, Principal: inv.Amount, Forfeited: inv.Return}, nil
}

// RedeemEarly closes an active investment before its end: the principal goes back to the
// available balance and the return is forfeited.
func (a *Account) RedeemEarly(investmentID string, at time.Time) error {
	r, err := a.EarlyRedemption(investmentID, at)
	if err != nil {
		return err
	}
	a.raise(InvestmentRedeemed{InvestmentID: investmentID, Principal: r.Principal, Forfeited: r.Forfeited, At: at.UTC()})
	return nil
}

// Due lists the active investments whose end is at or before at, earliest end first.
func (a *Account) Due(at time.Time) []string {
	var due []*Investment
	for _, inv := range a.investments {
		if inv.Status == StatusActive && !at.Before(inv.End) {
			due = append(due, inv)
		}
	}
	slices.SortFunc(due, func(x, y *Investment) int {
		return cmp.Or(x.End.Compare(y.End), strings.Compare(x.ID, y.ID))
	})
	ids := make([]string, len(due))
	for i, inv := range due {
		ids[i] = inv.ID
	}
	return ids
}

// ---- withdrawals ----

// WithdrawalRequest is what a user asks to withdraw, with the fee the published schedule
// charges for it (zero for a fee-exempt account).
type WithdrawalRequest struct {
	WithdrawalID string
	Amount       money.Money
	Fee          money.Money
	Address      string // validated for the network by the caller
	Network      string
	Asset        string
}

// RequestWithdrawal holds the amount until staff decide. The user will receive amount − fee.
func (a *Account) RequestWithdrawal(r WithdrawalRequest, at time.Time) error {
	if err := a.newRequestID(r.WithdrawalID); err != nil {
		return err
	}
	if _, err := money.Positive(r.Amount); err != nil {
		return err
	}
	if r.Fee.IsNegative() {
		return ErrFeeNegative
	}
	if !r.Fee.LessThan(r.Amount) {
		return ErrFeeTooHigh.WithMessage("The amount must be more than the withdrawal fee of " + r.Fee.Dollars())
	}
	asset, network, err := assetAndNetwork(r.Asset, r.Network)
	if err != nil {
		return err
	}
	// The address is checked against its network's checksum here, so no path can hold money
	// for a payout to an address that cannot receive it.
	address, err := payout.NormalizeAddress(network, r.Address)
	if err != nil {
		return err
	}
	if err := a.Covers(r.Amount); err != nil {
		return err
	}
	a.raise(WithdrawalRequested{
		WithdrawalID: r.WithdrawalID, Amount: r.Amount, Fee: r.Fee, Address: address, Network: network, Asset: asset, At: at.UTC(),
	})
	return nil
}

// Payout is what staff record when they approve a withdrawal: the transaction that paid it and,
// when known, the amount of the asset sent and the rate applied.
type Payout struct {
	TxHash        string
	OnChainAmount string // optional
	USDRate       string // optional
}

// ApproveWithdrawal settles a pending withdrawal's hold: the user was paid amount − fee, and the
// fee is charged.
func (a *Account) ApproveWithdrawal(withdrawalID string, p Payout, staffID string, at time.Time) error {
	return a.ApproveWithdrawalCountersigned(withdrawalID, p, staffID, Countersign{}, at)
}

// ApproveWithdrawalCountersigned is ApproveWithdrawal as proposed by staffID and approved by a
// second staff member, who paid it out.
func (a *Account) ApproveWithdrawalCountersigned(withdrawalID string, p Payout, staffID string, c Countersign, at time.Time) error {
	w, err := a.pendingWithdrawal(withdrawalID, staffID)
	if err != nil {
		return err
	}
	if err := c.check(a, staffID); err != nil {
		return err
	}
	txHash := strings.TrimSpace(p.TxHash)
	if txHash == "" {
		return ErrPayoutTxRequired
	}
	// The canonical form of the withdrawal's network, so a payout hash is compared with the
	// others (and with deposits) as one form whatever case or prefix staff pasted.
	if txHash, err = payout.CanonicalTxHash(payout.Network(w.Network), txHash); err != nil {
		return err
	}
	if p.OnChainAmount != "" && !validOnChain(w.Asset, p.OnChainAmount) {
		return ErrInvalidOnChain
	}
	if p.USDRate != "" && !validRate(p.USDRate) {
		return ErrInvalidRate
	}
	a.raise(WithdrawalApproved{
		WithdrawalID: withdrawalID, Amount: w.Amount, Fee: w.Fee, TxHash: txHash,
		OnChainAmount: p.OnChainAmount, USDRate: p.USDRate, StaffID: staffID,
		ProposalID: c.ProposalID, ApprovedBy: c.ApproverID, At: at.UTC(),
	})
	return nil
}

// RejectWithdrawal refuses a pending withdrawal and releases its hold; no fee is charged.
func (a *Account) RejectWithdrawal(withdrawalID, reason, staffID string, at time.Time) error {
	w, err := a.pendingWithdrawal(withdrawalID, staffID)
	if err != nil {
		return err
	}
	reason, err = requiredText(reason)
	if err != nil {
		return err
	}
	a.raise(WithdrawalRejected{WithdrawalID: withdrawalID, Amount: w.Amount, Reason: reason, StaffID: staffID, At: at.UTC()})
	return nil
}

func (a *Account) pendingWithdrawal(id, staffID string) (*Withdrawal, error) {
	if err := a.staff(staffID); err != nil {
		return nil, err
	}
	w, ok := a.withdrawals[id]
	if !ok {
		return nil, ErrWithdrawalNotFound
	}
	if w.Status != StatusPending {
		return nil, ErrWithdrawalDecided
	}
	return w, nil
}

// WaiveFee refunds amount of the fee charged on an approved withdrawal to the available balance.
func (a *Account) WaiveFee(withdrawalID string, amount money.Money, reason, staffID string, at time.Time) error {
	if err := a.staff(staffID); err != nil {
		return err
	}
	w, ok := a.withdrawals[withdrawalID]
	if !ok {
		return ErrWithdrawalNotFound
	}
	if w.Status != StatusApproved {
		return ErrNotApproved
	}
	left := w.Fee.Sub(w.FeeWaived)
	if !left.IsPositive() {
		return ErrNoFeeToWaive
	}
	if _, err := money.Positive(amount); err != nil {
		return err
	}
	if left.LessThan(amount) {
		return ErrWaiverTooLarge.WithMessage("The waiver cannot be more than the fee charged: " + left.Dollars() + " can still be waived")
	}
	reason, err := requiredText(reason)
	if err != nil {
		return err
	}
	a.raise(FeeWaived{WithdrawalID: withdrawalID, Amount: amount, Reason: reason, StaffID: staffID, At: at.UTC()})
	return nil
}

// ---- referrals and corrections ----

// CreditReferralBonus credits amount for referredUserID, a user this user referred.
func (a *Account) CreditReferralBonus(referredUserID string, amount money.Money, at time.Time) error {
	if !validID(referredUserID) {
		return ErrInvalidReferred
	}
	if referredUserID == a.userID {
		return ErrSelfReferral
	}
	if a.referrals[referredUserID] {
		return ErrReferralCredited
	}
	if _, err := money.Positive(amount); err != nil {
		return err
	}
	a.raise(ReferralBonusCredited{ReferredUserID: referredUserID, Amount: amount, At: at.UTC()})
	return nil
}

// Adjustment is a correction staff post: a signed amount for the available balance.
type Adjustment struct {
	AdjustmentID string
	Amount       money.Money
	Category     Category
	Reason       string
}

// PostAdjustment adds adj.Amount (negative to take money back) to the available balance. The
// second approval above a threshold is decided before this command runs.
func (a *Account) PostAdjustment(adj Adjustment, staffID string, at time.Time) error {
	return a.PostAdjustmentCountersigned(adj, staffID, Countersign{}, at)
}

// PostAdjustmentCountersigned is PostAdjustment as proposed by staffID and approved by a second
// staff member; neither may be the account's owner, and they are two people.
func (a *Account) PostAdjustmentCountersigned(adj Adjustment, staffID string, c Countersign, at time.Time) error {
	if err := a.staff(staffID); err != nil {
		return err
	}
	if err := c.check(a, staffID); err != nil {
		return err
	}
	if !validID(adj.AdjustmentID) {
		return ErrInvalidID
	}
	if a.adjustments[adj.AdjustmentID] {
		return ErrDuplicateID
	}
	if adj.Amount.IsZero() {
		return ErrAdjustmentZero
	}
	if !adj.Category.Valid() {
		return ErrInvalidCategory
	}
	reason, err := requiredText(adj.Reason)
	if err != nil {
		return err
	}
	if after := a.bal.Available.Add(adj.Amount); after.IsNegative() {
		return ErrAdjustmentNegative.WithMessage("A deduction cannot take the available balance below zero: " +
			a.bal.Available.Dollars() + " is available, so at most " + a.bal.Available.Dollars() + " can be deducted")
	}
	a.raise(AdjustmentPosted{
		AdjustmentID: adj.AdjustmentID, Amount: adj.Amount, Category: adj.Category, Reason: reason, StaffID: staffID,
		ProposalID: c.ProposalID, ApprovedBy: c.ApproverID, At: at.UTC(),
	})
	return nil
}

// SetFeeExemption turns the account's withdrawal fee exemption on or off: while it is on, the
// money service charges no withdrawal fee. A reason is required; setting what is already in
// force raises nothing.
func (a *Account) SetFeeExemption(exempt bool, reason, staffID string, at time.Time) error {
	if err := a.staff(staffID); err != nil {
		return err
	}
	reason, err := requiredText(reason)
	if err != nil {
		return err
	}
	if a.exemption.Exempt == exempt {
		return nil
	}
	a.raise(FeeExemptionSet{Exempt: exempt, Reason: reason, StaffID: staffID, At: at.UTC()})
	return nil
}

// FeeExempt reports whether the account pays no withdrawal fee.
func (a *Account) FeeExempt() bool { return a.exemption.Exempt }

// FeeExemption is the latest change of the fee exemption (who, when, why), and false when it was
// never set.
func (a *Account) FeeExemption() (FeeExemptionSet, bool) {
	return a.exemption, !a.exemption.At.IsZero()
}

// ---- shared checks ----

// raise records and applies e, or only collects it while Check asks what a decision would raise.
// A decision method reads state only before it raises, so collecting changes nothing it derives.
func (a *Account) raise(e aggregate.Event) {
	if a.dry != nil {
		*a.dry = append(*a.dry, e)
		return
	}
	aggregate.Raise(a, e)
}

func (a *Account) newRequestID(id string) error {
	if !validID(id) {
		return ErrInvalidID
	}
	if a.deposits[id] != nil || a.investments[id] != nil || a.withdrawals[id] != nil {
		return ErrDuplicateID
	}
	return nil
}

func (a *Account) staff(staffID string) error {
	if !validID(staffID) {
		return ErrInvalidStaffID
	}
	if staffID == a.userID {
		return ErrOwnAccount
	}
	return nil
}

// Covers refuses an amount the available balance cannot hold: the check a hold makes, for a
// quote to make before it is asked for.
func (a *Account) Covers(amount money.Money) error {
	if a.bal.Available.LessThan(amount) {
		return ErrInsufficientBalance.WithMessage("Insufficient balance: " + a.bal.Available.Dollars() + " is available")
	}
	return nil
}

// ---- state ----

// UserID is the id of the user whose money this is.
func (a *Account) UserID() string { return a.userID }

// Balances are the account's figures now.
func (a *Account) Balances() Balances { return a.bal }

// Available, Held, Invested, Returns, Fees and Adjustments are single figures of Balances.
func (a *Account) Available() money.Money   { return a.bal.Available }
func (a *Account) Held() money.Money        { return a.bal.Held }
func (a *Account) Invested() money.Money    { return a.bal.Invested }
func (a *Account) Returns() money.Money     { return a.bal.Returns }
func (a *Account) Fees() money.Money        { return a.bal.Fees }
func (a *Account) Adjustments() money.Money { return a.bal.Adjustments }

// Hold returns the hold with the request's id.
func (a *Account) Hold(id string) (Hold, bool) {
	h, ok := a.holds[id]
	if !ok {
		return Hold{}, false
	}
	return *h, true
}

// Holds are every hold, pending or not, oldest first.
func (a *Account) Holds() []Hold {
	var out []Hold
	for _, id := range a.order {
		if h, ok := a.holds[id]; ok {
			out = append(out, *h)
		}
	}
	return out
}

// Deposit returns one deposit.
func (a *Account) Deposit(id string) (Deposit, bool) {
	d, ok := a.deposits[id]
	if !ok {
		return Deposit{}, false
	}
	return *d, true
}

// Deposits are every deposit, oldest first.
func (a *Account) Deposits() []Deposit {
	var out []Deposit
	for _, id := range a.order {
		if d, ok := a.deposits[id]; ok {
			out = append(out, *d)
		}
	}
	return out
}

// Investment returns one investment.
func (a *Account) Investment(id string) (Investment, bool) {
	inv, ok := a.investments[id]
	if !ok {
		return Investment{}, false
	}
	return *inv, true
}

// Investments are every investment, oldest first.
func (a *Account) Investments() []Investment {
	var out []Investment
	for _, id := range a.order {
		if inv, ok := a.investments[id]; ok {
			out = append(out, *inv)
		}
	}
	return out
}

// Withdrawal returns one withdrawal.
func (a *Account) Withdrawal(id string) (Withdrawal, bool) {
	w, ok := a.withdrawals[id]
	if !ok {
		return Withdrawal{}, false
	}
	return *w, true
}

// Withdrawals are every withdrawal, oldest first.
func (a *Account) Withdrawals() []Withdrawal {
	var out []Withdrawal
	for _, id := range a.order {
		if w, ok := a.withdrawals[id]; ok {
			out = append(out, *w)
		}
	}
	return out
}

// ReferralCredited reports whether the bonus for referredUserID was credited.
func (a *Account) ReferralCredited(referredUserID string) bool { return a.referrals[referredUserID] }

// Apply implements aggregate.Aggregate. Balances move by the amounts the events carry.
func (a *Account) Apply(e aggregate.Event) {
	b := &a.bal
	switch e := e.(type) {
	case DepositRequested:
		a.order = append(a.order, e.DepositID)
		a.txIDs[e.TransactionID] = true
		a.deposits[e.DepositID] = &Deposit{
			ID: e.DepositID, TransactionID: e.TransactionID, Amount: e.Amount, Asset: e.Asset, Network: e.Network,
			OnChainAmount: e.OnChainAmount, USDRate: e.USDRate, TxHash: e.TxHash, Address: e.Address, Status: StatusPending, RequestedAt: e.At,
			Source: e.Source,
		}
	case DepositConfirmed:
		b.Available = b.Available.Add(e.Received)
		if d := a.deposits[e.DepositID]; d != nil {
			d.Status, d.Received, d.Notes, d.StaffID, d.DecidedAt = StatusConfirmed, e.Received, e.Notes, e.StaffID, e.At
			d.ApprovedBy = e.ApprovedBy
		}
	case DepositRejected:
		if d := a.deposits[e.DepositID]; d != nil {
			d.Status, d.Notes, d.StaffID, d.DecidedAt = StatusRejected, e.Notes, e.StaffID, e.At
		}
	case DepositLinkedToChain:
		a.chainLinks[e.ChainDepositID] = e.DepositID
		if d := a.deposits[e.DepositID]; d != nil && d.Status == StatusPending {
			d.Source, d.Asset, d.OnChainAmount, d.Address = SourceChain, e.Asset, e.OnChainAmount, e.Address
		}

	case InvestmentRequested:
		a.order = append(a.order, e.InvestmentID)
		a.hold(e.InvestmentID, HoldInvestment, e.Amount)
		a.investments[e.InvestmentID] = &Investment{
			ID: e.InvestmentID, Terms: e.Terms, Amount: e.Amount, Status: StatusPending, RequestedAt: e.At,
		}
	case InvestmentActivated:
		a.post(e.InvestmentID, e.Amount)
		b.Invested = b.Invested.Add(e.Amount)
		if inv := a.investments[e.InvestmentID]; inv != nil {
			inv.Status, inv.Return, inv.Start, inv.End, inv.StaffID, inv.DecidedAt = StatusActive, e.Return, e.Start, e.End, e.StaffID, e.Start
		}
	case InvestmentRejected:
		a.void(e.InvestmentID, e.Amount)
		if inv := a.investments[e.InvestmentID]; inv != nil {
			inv.Status, inv.Reason, inv.StaffID, inv.DecidedAt = StatusRejected, e.Reason, e.StaffID, e.At
		}
	case InvestmentMatured:
		b.Invested = b.Invested.Sub(e.Principal)
		b.Available = b.Available.Add(e.Principal).Add(e.Return)
		b.Returns = b.Returns.Add(e.Return)
		if inv := a.investments[e.InvestmentID]; inv != nil {
			inv.Status, inv.MaturedAt, inv.ReinvestRefused = StatusEnded, e.At, e.ReinvestRefused
		}
	case InvestmentInstructionSet:
		if inv := a.investments[e.InvestmentID]; inv != nil {
			inv.Instruction = e.Instruction
		}
	case InvestmentRedeemed:
		b.Invested = b.Invested.Sub(e.Principal)
		b.Available = b.Available.Add(e.Principal)
		if inv := a.investments[e.InvestmentID]; inv != nil {
			inv.Status, inv.MaturedAt, inv.ClosedEarly = StatusEnded, e.At, true
		}
	case InvestmentReinvested:
		b.Available = b.Available.Sub(e.Amount)
		b.Invested = b.Invested.Add(e.Amount)
		a.order = append(a.order, e.NewInvestmentID)
		if inv := a.investments[e.InvestmentID]; inv != nil {
			inv.ReinvestedAs = e.NewInvestmentID
		}
		a.investments[e.NewInvestmentID] = &Investment{
			ID: e.NewInvestmentID, Terms: e.Terms, Amount: e.Amount, Status: StatusActive, Return: e.Return,
			Start: e.Start, End: e.End, RequestedAt: e.Start, DecidedAt: e.Start,
			ReinvestedFrom: e.InvestmentID,
		}

	case WithdrawalRequested:
		a.order = append(a.order, e.WithdrawalID)
		a.hold(e.WithdrawalID, HoldWithdrawal, e.Amount)
		a.withdrawals[e.WithdrawalID] = &Withdrawal{
			ID: e.WithdrawalID, Amount: e.Amount, Fee: e.Fee, Address: e.Address, Network: e.Network, Asset: e.Asset,
			Status: StatusPending, RequestedAt: e.At,
		}
	case WithdrawalApproved:
		a.post(e.WithdrawalID, e.Amount)
		b.Fees = b.Fees.Add(e.Fee)
		if w := a.withdrawals[e.WithdrawalID]; w != nil {
			w.Status, w.TxHash, w.OnChainAmount, w.USDRate, w.StaffID, w.DecidedAt = StatusApproved, e.TxHash, e.OnChainAmount, e.USDRate, e.StaffID, e.At
			w.ApprovedBy = e.ApprovedBy
		}
	case WithdrawalRejected:
		a.void(e.WithdrawalID, e.Amount)
		if w := a.withdrawals[e.WithdrawalID]; w != nil {
			w.Status, w.Reason, w.StaffID, w.DecidedAt = StatusRejected, e.Reason, e.StaffID, e.At
		}
	case FeeWaived:
		b.Fees = b.Fees.Sub(e.Amount)
		b.Available = b.Available.Add(e.Amount)
		if w := a.withdrawals[e.WithdrawalID]; w != nil {
			w.FeeWaived = w.FeeWaived.Add(e.Amount)
		}

	case ReferralBonusCredited:
		a.referrals[e.ReferredUserID] = true
		b.Available = b.Available.Add(e.Amount)
		b.Referrals = b.Referrals.Add(e.Amount)
	case FeeExemptionSet:
		a.exemption = e
	case AdjustmentPosted:
		a.adjustments[e.AdjustmentID] = true
		b.Available = b.Available.Add(e.Amount)
		b.Adjustments = b.Adjustments.Add(e.Amount)
	}
}

// hold reserves amount from the available balance.
func (a *Account) hold(id string, kind HoldKind, amount money.Money) {
	a.bal.Available = a.bal.Available.Sub(amount)
	a.bal.Held = a.bal.Held.Add(amount)
	a.holds[id] = &Hold{ID: id, Kind: kind, Amount: amount, Status: HoldPending}
}

// post settles amount of a hold; where it goes is the caller's business.
func (a *Account) post(id string, amount money.Money) {
	a.bal.Held = a.bal.Held.Sub(amount)
	if h := a.holds[id]; h != nil {
		h.Status, h.Posted = HoldPosted, amount
	}
}

// void releases a hold back to the available balance.
func (a *Account) void(id string, amount money.Money) {
	a.bal.Held = a.bal.Held.Sub(amount)
	a.bal.Available = a.bal.Available.Add(amount)
	if h := a.holds[id]; h != nil {
		h.Status = HoldVoided
	}
}

// ---- input helpers ----

func validID(id string) bool {
	if id == "" || len(id) > MaxIDLength {
		return false
	}
	for _, r := range id {
		if r <= ' ' || r == 0x7f || r > '~' {
			return false
		}
	}
	return true
}

// validField accepts a trimmed, non-empty, printable single-line value of at most max runes.
func validField(s string, max int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// assetAndNetwork checks that the asset travels on the network (BTC on Bitcoin, USDT on TRON
// or Ethereum, ...), with the vocabulary of the asset and payout packages.
func assetAndNetwork(a, n string) (string, string, error) {
	parsed, err := asset.Parse(strings.TrimSpace(a))
	if err != nil {
		return "", "", ErrInvalidAsset
	}
	network, err := payout.ParseNetwork(strings.TrimSpace(n))
	if err != nil {
		return "", "", ErrInvalidNetwork
	}
	if err := payout.CheckRoute(parsed, network); err != nil {
		return "", "", ErrInvalidNetwork.WithMessage(parsed.Name() + " cannot be sent on " + network.Name())
	}
	return string(parsed), string(network), nil
}

// validOnChain reports whether s is a positive amount of the asset in its own precision (8
// decimals for BTC, 6 for USDT, ...), never rounded.
func validOnChain(a, s string) bool {
	amount, err := asset.ParseAmount(asset.Asset(a), s)
	return err == nil && !amount.IsZero()
}

// validRate reports whether s is a USD rate the asset package accepts.
func validRate(s string) bool {
	_, err := asset.ParseRate(s)
	return err == nil
}
func requiredText(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ErrReasonRequired
	}
	if !textcheck.MultiLine(s) {
		return "", ErrReasonInvisible
	}
	if utf8.RuneCountInString(s) > MaxTextRunes {
		return "", ErrReasonTooLong
	}
	return s, nil
}

// optionalText is staff's notes on a decision: read by the investor in an e-mail and in their
// statement, so held to textcheck.MultiLine.
func optionalText(s string, tooLong error) (string, error) {
	s = strings.TrimSpace(s)
	if !textcheck.MultiLine(s) {
		return "", ErrNotesInvisible
	}
	if utf8.RuneCountInString(s) > MaxTextRunes {
		return "", tooLong
	}
	return s, nil
}

// validTermRate reports whether s is a rate for the term as the plan catalogue writes it. The
// range is the plan's business; an investment only needs a rate it can compute with.
func validTermRate(s string) bool {
	_, err := plan.ParseRate(s)
	return err == nil
}
