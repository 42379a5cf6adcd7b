package io.rdmaverbs.verbs.provider;

/**
 * A provider's handle on one native object. Only the provider that created a handle may be given it
 * back; each provider rejects foreign and destroyed handles before any native call.
 */
public interface Handle {

    /** A short description for error messages, e.g. {@code ibv_pd@0x7f3a10001230}. */
    String describe();
}
