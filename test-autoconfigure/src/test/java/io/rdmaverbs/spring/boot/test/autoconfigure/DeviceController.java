package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.List;

import io.rdmaverbs.verbs.DeviceContext;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** A controller of the kind a slice test targets: it lists the device contexts it was given, if any. */
@RestController
class DeviceController {

    private final ObjectProvider<DeviceContext> contexts;

    DeviceController(ObjectProvider<DeviceContext> contexts) {
        this.contexts = contexts;
    }

    @GetMapping("/devices")
    List<String> devices() {
        return contexts.orderedStream().map(context -> context.device().name()).toList();
    }
}
