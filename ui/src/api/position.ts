import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

// Command responses carry the global position of the last event they appended; queries that send
// it back wait until the read models have caught up, so a page shown right after a write already
// reflects it (docs/product-rules.md, "Read-your-writes").
export const POSITION_HEADER = 'X-Clearvest-Position';

export interface PositionState {
  // A decimal string, not a number: positions are int64 on the server and may pass 2^53.
  highest: string | null;
}

const initialState: PositionState = { highest: null };

const isPosition = (value: string) => /^\d{1,19}$/.test(value);

export const positionSlice = createSlice({
  name: 'position',
  initialState,
  reducers: {
    positionSeen(state, action: PayloadAction<string>) {
      const seen = action.payload.trim();
      if (!isPosition(seen)) return;
      // Responses can arrive out of order; going backwards would weaken the guarantee.
      if (state.highest === null || BigInt(seen) > BigInt(state.highest)) {
        state.highest = BigInt(seen).toString();
      }
    },
  },
  selectors: {
    selectHighestPosition: (state) => state.highest,
  },
});

export const { positionSeen } = positionSlice.actions;
export const { selectHighestPosition } = positionSlice.selectors;
