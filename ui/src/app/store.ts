import { combineSlices, configureStore } from '@reduxjs/toolkit';
import { baseApi } from '../api/baseApi';
import { positionSlice } from '../api/position';
import { toastSlice } from '../components/toast/toastSlice';
import { authSlice } from '../features/auth/authSlice';

const rootReducer = combineSlices(baseApi, positionSlice, toastSlice, authSlice);

export type RootState = ReturnType<typeof rootReducer>;

// A factory rather than a singleton so every test gets a fresh, real store.
export function makeStore(preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(baseApi.middleware),
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
