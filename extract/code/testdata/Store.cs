using System;
using System.Collections.Generic;

namespace Example.Storage
{
    /// <summary>A store of items.</summary>
    [Serializable]
    public class Store<T> : IStore<T>
    {
        private readonly List<T> items = new();

        /// <summary>Creates a store.</summary>
        public Store() { }

        /// <summary>Adds an item.</summary>
        [Obsolete("use AddAll")]
        public void Add(T item)
        {
            items.Add(item);
        }

        public void Add(T item, int count)
        {
            for (var i = 0; i < count; i++) Add(item);
        }

        public class Page
        {
            public int Number() => 1;
        }
    }

    public interface IStore<T>
    {
        void Add(T item);
    }

    public struct Point { public int X; }

    public enum Color { Red, Green }

    public delegate void Handler(object sender);
}
