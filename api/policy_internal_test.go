package api

import (
	"testing"

	"clearvest/api/apigen"
	"clearvest/domain/identity"
)

// TestEveryOperationHasAnAction keeps the policy table complete and the document honest: each
// operation of openapi.yaml is in operationActions (else it is refused to everyone), and its
// x-clearvest-action, which client authors read, says the same as the table the server enforces.
func TestEveryOperationHasAnAction(t *testing.T) {
	t.Parallel()
	doc, err := apigen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			seen[op.OperationID] = true
			action, ok := operationActions[op.OperationID]
			if !ok {
				t.Errorf("%s %s (%s) is missing from operationActions", method, path, op.OperationID)
				continue
			}
			documented, _ := op.Extensions["x-clearvest-action"].(string)
			if documented != string(action) {
				t.Errorf("%s: x-clearvest-action %q, policy table %q", op.OperationID, documented, action)
			}
		}
	}
	for id := range operationActions {
		if !seen[id] {
			t.Errorf("operationActions names %s, which the document does not have", id)
		}
	}
}

func TestPolicyTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role   identity.Role
		action Action
		want   bool
	}{
		{identity.RoleSubscriber, ActOwnAccount, true},
		{identity.RoleSubscriber, ActViewUsers, false},
		{identity.RoleSubscriber, ActChangeRoles, false},
		{identity.RoleAuthor, ActViewUsers, true},
		{identity.RoleAuthor, ActReviewQueues, true},
		{identity.RoleAuthor, ActSendEmail, true},
		{identity.RoleAuthor, ActChangeRoles, false},
		{identity.RoleAuthor, ActSuspendUsers, false},
		{identity.RoleAuthor, ActCloseAccounts, false},
		{identity.RoleAuthor, ActImpersonate, false},
		{identity.RoleAdmin, ActChangeRoles, true},
		{identity.RoleAdmin, ActApproveChanges, true},
		{"suspended", ActOwnAccount, false},
		{"", ActPublic, true},
		{"", ActOwnAccount, false},
	}
	for _, tc := range tests {
		if got := Allowed(tc.role, tc.action); got != tc.want {
			t.Errorf("Allowed(%q, %q) = %v, want %v", tc.role, tc.action, got, tc.want)
		}
	}
}
