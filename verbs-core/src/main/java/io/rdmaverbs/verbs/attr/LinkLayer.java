package io.rdmaverbs.verbs.attr;

/** {@code IBV_LINK_LAYER_*}. RoCE devices (soft-RoCE included) report {@link #ETHERNET}. */
public enum LinkLayer {
    UNSPECIFIED, INFINIBAND, ETHERNET;

    public static LinkLayer of(int value) {
        LinkLayer[] all = values();
        return value >= 0 && value < all.length ? all[value] : UNSPECIFIED;
    }
}
