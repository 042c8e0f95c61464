-- A view-as-user session (docs/staff.md, "Viewing as a user") belongs to the user being viewed
-- but is held by an admin: who, and the admin's own session it returns to. Such a session has
-- no refresh token anyone holds, so it ends at its short expires_at. It is left out of the
-- user's own session list and sign-ins (their security log shows the visit instead).
ALTER TABLE sessions ADD COLUMN impersonator_id uuid;
ALTER TABLE sessions ADD COLUMN impersonator_session_id uuid;
