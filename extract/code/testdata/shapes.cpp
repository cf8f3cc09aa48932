#include <string>
#include <vector>

namespace geo {

/// A shape.
class Shape {
public:
    /// The area.
    virtual double area() const = 0;
    virtual ~Shape() = default;

    /// Names the shape.
    std::string name() const { return "shape"; }

    struct Style {
        int width;
    };
};

/// A circle.
class Circle : public Shape {
public:
    explicit Circle(double r);
    double area() const override;
    double area(double scale) const;

private:
    double r_;
};

template <typename T>
T twice(T x) {
    return x + x;
}

}  // namespace geo

geo::Circle::Circle(double r) : r_(r) {}

// The area of a circle.
double geo::Circle::area() const {
    return 3.14159 * r_ * r_;
}

[[nodiscard]] int answer() { return 42; }
