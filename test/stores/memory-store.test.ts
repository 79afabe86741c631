import { MemoryStore } from '../../core/memory/memory-store.ts';
import { storeContract } from './store-contract.ts';

storeContract('MemoryStore', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});
