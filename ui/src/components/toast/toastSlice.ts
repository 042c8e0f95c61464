import { createSlice, nanoid, type PayloadAction } from '@reduxjs/toolkit';

// No error variant: an error is shown where the reader is working (on the field, or in the
// form's FormError), never in a passing toast.
export type ToastVariant = 'success' | 'info';

export interface Toast {
  id: string;
  variant: ToastVariant;
  message: string;
}

const initialState: Toast[] = [];

export const toastSlice = createSlice({
  name: 'toasts',
  initialState,
  reducers: {
    toastShown: {
      // Toasts never stack: a new one replaces the one on screen, so a burst of actions leaves
      // one confirmation to read, not a pile covering the page.
      reducer(_state, action: PayloadAction<Toast>) {
        return [action.payload];
      },
      prepare(variant: ToastVariant, message: string) {
        return { payload: { id: nanoid(), variant, message } };
      },
    },
    toastDismissed(state, action: PayloadAction<string>) {
      return state.filter((toast) => toast.id !== action.payload);
    },
  },
  selectors: {
    selectToasts: (state) => state,
  },
});

export const { toastShown, toastDismissed } = toastSlice.actions;
export const { selectToasts } = toastSlice.selectors;
