/** Decides whether a primary's add event reconciles it. */
export type OnAddFilter<P> = (resource: P) => boolean;
/** Decides whether a primary's update event reconciles it. */
export type OnUpdateFilter<P> = (newResource: P, oldResource: P) => boolean;
/** Decides whether a primary's delete event is processed (it only cleans up the controller's state). */
export type OnDeleteFilter<P> = (resource: P, finalStateUnknown: boolean) => boolean;
/** Decides for every event (add, update, delete) of a primary; applied after the specific filter. */
export type GenericFilter<P> = (resource: P) => boolean;
