/**
 * Listener of an informer (client-go's `ResourceEventHandler`). Handlers are called synchronously,
 * in registration order, from the informer's loop: keep them short (enqueue, do not reconcile).
 * A handler that throws is logged and skipped; the informer goes on. An `async` handler is not
 * awaited (events are not held back for it); its rejection is logged the same way.
 */
export interface ResourceEventHandler<T> {
  /** An object appeared (first list, watch ADDED, re-list, or re-creation under a new uid). */
  onAdd?(obj: T): void;
  /**
   * An object changed. `oldObj` is the object the list/watch delivered before `newObj`, except for
   * the watch event of an own write cached with `Informer.cacheIfNewer`: then `oldObj` is that write
   * (same resourceVersion as `newObj`), since the writer already knows the change.
   */
  onUpdate?(oldObj: T, newObj: T): void;
  /**
   * An object is gone. `finalStateUnknown` is true when the deletion was inferred (a re-list no
   * longer contained it, or it was re-created under a new uid while the watch was down): `obj` is
   * then the last state the informer saw, not the state at deletion.
   */
  onDelete?(obj: T, finalStateUnknown: boolean): void;
}
