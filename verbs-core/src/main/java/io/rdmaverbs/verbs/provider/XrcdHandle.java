package io.rdmaverbs.verbs.provider;

/** A provider's handle on a XRC domain (struct ibv_xrcd). */
public interface XrcdHandle extends Handle {
}
