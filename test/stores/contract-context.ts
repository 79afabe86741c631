/** What the parts of the store contract (store-contract.ts and the files it runs) share about the store under test. */
import type { User } from '../../core/records/index.ts';
import type { Store } from '../../core/store/store.ts';
import type { StoredEvent } from './outbox.ts';

/** A store for one test, and (on the SQL stores) a way to read what it keeps but never answers. */
export interface OpenedStore {
  store: Store;
  cleanup(): Promise<void>;
  /** The event outbox, oldest first; absent where only the store itself could read it. */
  events?(): Promise<StoredEvent[]>;
}

/** What the engine's parts of the contract (in files of their own) see of the current test's store. */
export interface ContractContext {
  store(): Store;
  newUser(): Promise<User>;
  /** The current store's outbox reader, if it has one. */
  events(): (() => Promise<StoredEvent[]>) | undefined;
}
