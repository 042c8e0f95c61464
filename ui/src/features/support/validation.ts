import * as z from 'zod/mini';

// The server's limits (domain/support); the server stays the authority and its message is shown.
export const NAME_MAX = 100;
export const MESSAGE_MAX = 5000;

const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const filled = (s: string) => s.trim().length > 0;
const chars = (s: string) => Array.from(s.trim()).length;

// What can be wrong with the form, in the order it is checked. The words are the reader's
// language's (the support namespace's errors), given by the form.
export type ContactProblem = 'required' | 'email' | 'nameTooLong' | 'messageTooLong';

// One message at a time, in the contact form's order: everything filled, then a valid address,
// then the lengths.
export function contactSchema(say: (problem: ContactProblem) => string) {
  return z
    .object({ user_name: z.string(), user_email: z.string(), message: z.string(), website: z.string() })
    .check(
      z.superRefine((v, ctx) => {
        if (!filled(v.user_name) || !filled(v.user_email) || !filled(v.message)) {
          const path = !filled(v.user_name) ? 'user_name' : !filled(v.user_email) ? 'user_email' : 'message';
          ctx.addIssue({ code: 'custom', message: say('required'), path: [path] });
          return;
        }
        if (!EMAIL.test(v.user_email.trim())) {
          ctx.addIssue({ code: 'custom', message: say('email'), path: ['user_email'] });
          return;
        }
        if (chars(v.user_name) > NAME_MAX) {
          ctx.addIssue({ code: 'custom', message: say('nameTooLong'), path: ['user_name'] });
          return;
        }
        if (chars(v.message) > MESSAGE_MAX) {
          ctx.addIssue({ code: 'custom', message: say('messageTooLong'), path: ['message'] });
        }
      }),
    );
}

export type ContactValues = z.infer<ReturnType<typeof contactSchema>>;
