package api

import "testing"

// A limit on an operation that does not exist (a typo, a renamed operation) would limit
// nothing and fail nowhere else.
func TestRequestLimitsNameRealOperations(t *testing.T) {
	for op, l := range requestLimits {
		if _, ok := operationActions[op]; !ok {
			t.Errorf("%s is limited but is not an operation", op)
		}
		if l.perUser.Limit < 1 || l.perUser.Window <= 0 || l.group == "" || l.what == "" {
			t.Errorf("%s: %+v has no per-user limit", op, l)
		}
		if l.perClient.Limit != 0 && l.perClient.Limit < l.perUser.Limit {
			t.Errorf("%s: the address's limit %d is below one user's %d", op, l.perClient.Limit, l.perUser.Limit)
		}
	}
	for _, op := range []string{"createDeposit", "createWithdrawal", "startInvestment", "uploadKycDocuments", "uploadPhoto", "submitTestimonial", "createSupportTicket"} {
		if _, ok := requestLimits[op]; !ok {
			t.Errorf("%s is not limited", op)
		}
	}
}
