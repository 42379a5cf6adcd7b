package io.rdmaverbs.verbs.provider;

/** A provider's handle on a protection domain (struct ibv_pd). */
public interface PdHandle extends Handle {
}
