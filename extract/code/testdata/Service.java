package com.example;

import java.util.List;

/**
 * A service over users.
 */
@Service
public class UserService implements Saver {
    /** The maximum number of users. */
    public static final int MAX = 100;

    private final List<String> users;

    /** Creates a service. */
    public UserService(List<String> users) {
        this.users = users;
    }

    /**
     * Finds a user by name.
     */
    @Override
    public String find(String name) {
        return name;
    }

    public String find(int id) {
        return users.get(id);
    }

    /** A nested builder. */
    public static class Builder {
        public UserService build() {
            return new UserService(List.of());
        }
    }
}

interface Saver {
    /** Saves. */
    String find(String name);
}

enum Color {
    RED, GREEN;

    Color next() {
        return GREEN;
    }
}
