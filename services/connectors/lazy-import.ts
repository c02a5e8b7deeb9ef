// A provider's SDK is imported on its first call. The parts that only read the provider list, the
// CLI, and a deployment that routes to two providers do not hold the others: each SDK is 4–17 MB of
// heap once loaded (Adyen's the most), which every major collection marks again.

export interface LazyModule<T> {
  /** Imports it on the first call; the same promise after. */
  load(): Promise<T>;
  /** It, once a load finished; undefined before, when nothing made by it (an error of its classes) can exist. */
  loaded(): T | undefined;
}

export function lazyImport<T>(importer: () => Promise<T>): LazyModule<T> {
  let loading: Promise<T> | undefined;
  let value: T | undefined;
  return {
    load: () => (loading ??= importer().then((m) => (value = m))),
    loaded: () => value,
  };
}
