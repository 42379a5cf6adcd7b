package io.rdmaverbs.verbs.provider.simulated;

/**
 * An object that was still alive when its context was closed. {@code ibv_close_device} does not
 * release it, so it stays in the device's accounting (and keeps counting against the device limits)
 * until the process exits.
 *
 * @param device the device name, e.g. {@code rxe0}
 * @param context the closed context's description
 * @param kind what the object is
 * @param handle the object's description, as its handle gave it
 */
public record LeakedObject(String device, String context, KernelObjectKind kind, String handle) {
}
