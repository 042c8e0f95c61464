package money

import "github.com/prometheus/client_golang/prometheus"

// FailSettling makes SettleDue fail for every account fault returns an error for.
func (s *Service) FailSettling(fault func(userID string) error) { s.settleFault = fault }

// AfterClaimRead runs fn between RecordChainDeposit's read of the transaction's claim and its
// command.
func (s *Service) AfterClaimRead(fn func()) { s.claimRead = fn }

// SetPage sets how many due accounts the job reads per page.
func (j *MaturityJob) SetPage(n int) { j.page = n }

// ParkedGauge is the job's gauge of parked accounts.
func (j *MaturityJob) ParkedGauge() prometheus.Gauge { return j.parked }

// FailureCounter is the job's counter of failed attempts.
func (j *MaturityJob) FailureCounter() prometheus.Counter { return j.failures }

// MaturityClaim is how many due accounts a pass claims at a time.
const MaturityClaim = maturityClaim

// MaturityLockNamespace is the first key of the advisory locks of the maturity claims.
const MaturityLockNamespace = maturityLockNamespace
