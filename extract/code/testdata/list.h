#ifndef LIST_H
#define LIST_H

#include <stddef.h>

/* The maximum length of a list. */
#define LIST_MAX 1024

#define LIST_EMPTY(l) ((l)->len == 0)

/* A node of a list. */
struct node {
    int value;
    struct node *next;
};

/* A list. */
typedef struct {
    struct node *head;
    size_t len;
} list;

typedef int (*visit_fn)(int);

enum color { RED, GREEN };

/* Appends a value. */
int list_append(list *l, int value);

size_t list_len(const list *l);

#endif
