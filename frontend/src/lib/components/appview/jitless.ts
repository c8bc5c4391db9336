// Turns zod's JIT off before any schema exists (see sdk.ts).
import { config } from 'zod/v4';

config({ jitless: true });
